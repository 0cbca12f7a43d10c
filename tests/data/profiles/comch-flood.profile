# Comch control messages of 64 KiB and receive queues of 1024 of them: one connection holds
# more in flight (64 MiB) than its sockets take (comch_net_local.sh, server-flood). Same PCI
# addresses as the built-in bf3, but another system.
system comch-flood

device side=host pci=0000:b1:00.0 ibdev=mlx5_0 iface=h0 memcpy=yes max_buf_size=1M max_buf_list_len=4 max_num_tasks=64 queue_depth=16 export_pci=yes from_export_pci=yes comch=yes comch_max_msg_size=65536 comch_recv_queue=1024 comch_max_clients=8 comch_send_tasks=1024 comch_fp_tasks=4 comch_fp_buf_size=65536 comch_fp_endpoints=2 comch_imm_data=8
device side=dpu pci=0000:03:00.0 ibdev=mlx5_0 iface=p0 memcpy=yes max_buf_size=1M max_buf_list_len=4 max_num_tasks=64 queue_depth=16 export_pci=yes from_export_pci=yes comch=yes comch_max_msg_size=65536 comch_recv_queue=1024 comch_max_clients=8 comch_send_tasks=1024 comch_fp_tasks=4 comch_fp_buf_size=65536 comch_fp_endpoints=2 comch_imm_data=8
rep parent=0000:03:00.0 pci=0000:b1:00.0 vuid=SMALLHOSTPF0 func=pf
