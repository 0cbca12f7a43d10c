# A small custom system: one host PF, one DPU PF with two representors.
system lab-box

device side=host pci=0000:5e:00.0 ibdev=mlx5_4 iface=ens7f0np0 mac=02:00:00:00:00:01 ipv4=10.9.0.1 lid=7 memcpy=yes max_buf_size=1M max_buf_list_len=16 max_num_tasks=4096 queue_depth=128 export_pci=yes from_export_pci=yes
device side=dpu pci=03:00.0 ibdev=mlx5_0 iface=p0 func=pf memcpy=yes max_buf_size=0x200000 max_buf_list_len=32 max_num_tasks=8192 queue_depth=256 export_pci=yes from_export_pci=yes export_rdma=yes from_export_rdma=yes   # trailing comment
rep parent=0000:03:00.0 pci=0000:5e:00.0 vuid=LABPF0 func=pf
rep parent=0000:03:00.0 pci=0000:5e:00.5 vuid=LABVF0 func=vf net=yes emulated=yes hotplug=yes
device side=dpu pci=0000:03:00.1 ibdev=mlx5_1 iface=p1 func=sf sf_index=3
