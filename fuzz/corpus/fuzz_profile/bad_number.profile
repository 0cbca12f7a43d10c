system broken
device side=dpu pci=0000:03:00.0 ibdev=mlx5_0 iface=p0 memcpy=yes max_buf_size=2M max_buf_list_len=99999999999 max_num_tasks=1 queue_depth=1
