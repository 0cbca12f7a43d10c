system broken

device side=dpu pci=0000:03:00.0 iface=p0
