system fz
device side=host pci=0000:b1:00.0 ibdev=mlx5_0 iface=e0 mac=b8:3f:d2:9a:10:00 ipv4=192.168.100.1 memcpy=yes max_buf_size=2M max_buf_list_len=64 max_num_tasks=65536 queue_depth=1024 export_pci=yes
device side=dpu pci=03:00.0 ibdev=mlx5_2 iface=p0 func=pf memcpy=no
rep parent=0000:03:00.0 pci=0000:b1:00.0 vuid=X func=pf
