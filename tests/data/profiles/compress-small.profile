system compress-small
# DOCA Compress limits of tests/compress: one port that compresses and decompresses deflate with a
# 4 KiB max buf size, one port without DOCA Compress (compress_* default to no)
device side=dpu pci=0000:0a:00.0 ibdev=mlx5_0 iface=p0 ipv4=10.8.0.1 compress_deflate=yes decompress_deflate=yes compress_max_buf_size=4K
device side=dpu pci=0000:0a:00.1 ibdev=mlx5_1 iface=p1 ipv4=10.8.1.1
