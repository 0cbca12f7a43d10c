# For tests/api/test_clock.c: a device without NIC clocks, one with only the real-time clock.
system clocks
device side=host pci=0000:11:00.0 ibdev=mlx5_9 iface=eth9
device side=host pci=0000:11:00.1 ibdev=mlx5_8 iface=eth8 clock_real_time=yes
