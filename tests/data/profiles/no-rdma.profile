system no-rdma
# one host port with RDMA and one without (rdma=no is the default of a profile line)
device side=host pci=0000:0a:00.0 ibdev=mlx5_0 iface=eth0 ipv4=10.9.0.1 rdma=yes export_rdma=yes from_export_rdma=yes
device side=host pci=0000:0a:00.1 ibdev=mlx5_1 iface=eth1 ipv4=10.9.1.1
