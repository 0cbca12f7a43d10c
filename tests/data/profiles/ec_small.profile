# For tests/api/test_ec_api.c: erasure coding with tiny limits (64-byte blocks, lists of 2).
system ec_small
device side=host pci=0000:21:00.0 ibdev=mlx5_4 iface=eth4 ec=yes ec_max_block_size=64 ec_max_buf_list_len=2
