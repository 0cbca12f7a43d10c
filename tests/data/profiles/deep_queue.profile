# One device whose queue is deeper than a thread-engine channel (4096): lets a test fill
# the engine itself rather than the device queue.
system deep-queue
device side=host pci=0000:5e:00.0 ibdev=mlx5_4 iface=ens7f0np0 memcpy=yes max_buf_size=2M max_buf_list_len=64 max_num_tasks=65536 queue_depth=8192
