system broken
# line 2
device side=host pci=0000:5e:00.0 ibdev=mlx5_4 iface=e0 colour=blue
