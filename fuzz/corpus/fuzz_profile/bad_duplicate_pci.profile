system broken
device side=host pci=0000:5e:00.0 ibdev=mlx5_4 iface=e0
device side=dpu pci=5e:00.0 ibdev=mlx5_0 iface=p0
