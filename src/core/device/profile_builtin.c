/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * The built-in system profiles, named after the devices they emulate (docs/profiles.md has
 * the table of what each device can do and where each value comes from). They are written in
 * the profile file format, so they exercise the same parser as a user's file.
 *
 * What NVIDIA documents, and what it does not:
 *   - DOCA DMA runs on the host or on the BlueField Arm; host<->Arm copies need a BlueField in
 *     DPU mode. Whether a ConnectX (no BlueField) offers the memcpy task is not documented:
 *     odma's ConnectX profiles say no (doca_dma_cap_task_memcpy_is_supported tells).
 *   - Comch connects a host client to a server on the BlueField Arm: BlueField only.
 *   - DOCA RDMA runs on the host or on the BlueField (DPU or SuperNIC), over IB or RoCE.
 *   - Mmap Advise (cache invalidation) runs on the BlueField target in DPU mode: Arm side only.
 *   - DOCA Compress runs on the host or on the BlueField Arm (BlueField in DPU mode); NVIDIA's
 *     DOCA Compress guide lists deflate compress and deflate decompress for BlueField-2, and
 *     deflate and LZ4 decompress (no compression) for BlueField-3. No ConnectX is listed.
 *     The largest buffer is not published: odma's value is 128 MiB.
 *   - DOCA Erasure Coding: BlueField-3 (host and Arm side) only, per NVIDIA's EC guide.
 *   - The DPA (and its timer) is a BlueField-3 part; BlueField-2 and the ConnectX cards here
 *     have none.
 *   - No per-device DMA limits (largest buffer, list length, task pool, queue depth) are
 *     published: the values below are odma's (2 MiB and 64 match public third-party reports
 *     for BlueField parts), the same on every device that has the memcpy task.
 */
#include <stdio.h>
#include <string.h>

#include "core/device/device.h"

/*
 * Comch on BlueField-like parts (emulated values; NVIDIA publishes none): 4080-byte control
 * messages, as the legacy Comm Channel allowed.
 */
#define ODMA_BF_COMCH                                                                              \
	" comch=yes comch_max_msg_size=4080 comch_recv_queue=1024 comch_max_clients=512"           \
	" comch_send_tasks=8192 comch_fp_tasks=1024 comch_fp_buf_size=1073741824 "                 \
	"comch_fp_endpoints=64"                                                                    \
	" comch_imm_data=32"

/* RDMA on BlueField and ConnectX-like ports (emulated values): RC and DC, 1 GiB messages. */
#define ODMA_RDMA_CAPS                                                                             \
	" rdma=yes rdma_dc=yes rdma_max_msg_size=1073741824 rdma_queue=32768 rdma_buf_list=16"     \
	" rdma_gid_table=256"

/*
 * Built-in profiles, written in the file format so they exercise the same parser.
 * The limits are emulated values (public reports give 2 MiB and 64 for BlueField parts).
 */
#define ODMA_BF_BASE                                                                               \
	" memcpy=yes max_buf_size=2M max_buf_list_len=64 max_num_tasks=65536 queue_depth=1024"     \
	" export_pci=yes from_export_pci=yes export_rdma=yes from_export_rdma=yes"                 \
	" clock_free_running=yes clock_real_time=yes" ODMA_BF_COMCH ODMA_RDMA_CAPS
/* DOCA Compress: BlueField-2 compresses and decompresses deflate; BlueField-3 decompresses
 * deflate and LZ4 only. */
#define ODMA_BF2_COMPRESS " compress_deflate=yes decompress_deflate=yes compress_max_buf_size=128M"
#define ODMA_BF3_COMPRESS " decompress_deflate=yes decompress_lz4=yes compress_max_buf_size=128M"
/*
 * Erasure coding: NVIDIA documents the library for BlueField-3 (and later) memory regions,
 * host and Arm side; not for BlueField-2 or the ConnectX adapters. The limits are odma's
 * (NVIDIA publishes none; its recover sample sizes for 128 data and 32 redundancy blocks).
 */
#define ODMA_EC_CAPS " ec=yes ec_max_block_size=128M ec_max_buf_list_len=128"
/* BlueField-3 has a DPA (its timer is a NIC clock); only the Arm side invalidates caches. */
#define ODMA_BF3_HOST_CAPS ODMA_BF_BASE ODMA_BF3_COMPRESS ODMA_EC_CAPS " clock_dpa_timer=yes\n"
#define ODMA_BF3_DPU_CAPS                                                                          \
	ODMA_BF_BASE ODMA_BF3_COMPRESS ODMA_EC_CAPS " clock_dpa_timer=yes cache_invalidate=yes\n"
#define ODMA_BF2_HOST_CAPS ODMA_BF_BASE ODMA_BF2_COMPRESS "\n"
#define ODMA_BF2_DPU_CAPS ODMA_BF_BASE ODMA_BF2_COMPRESS " cache_invalidate=yes\n"

static const char profile_bf3[] =
        "system bf3\n"
        "# host side: the BlueField-3 PFs as the x86 host sees them\n"
        "device side=host pci=0000:b1:00.0 ibdev=mlx5_0 iface=ens1f0np0 mac=b8:3f:d2:9a:10:00"
        " ipv4=192.168.100.1 ipv6=fe80::ba3f:d2ff:fe9a:1000 vhca_id=0 "
        "active_rate=200000000000" ODMA_BF3_HOST_CAPS
        "device side=host pci=0000:b1:00.1 ibdev=mlx5_1 iface=ens1f1np1 mac=b8:3f:d2:9a:10:01"
        " ipv4=192.168.101.1 ipv6=fe80::ba3f:d2ff:fe9a:1001 vhca_id=1 "
        "active_rate=200000000000" ODMA_BF3_HOST_CAPS
        "# DPU side: the Arm cores' view of the same two ports\n"
        "device side=dpu pci=0000:03:00.0 ibdev=mlx5_0 iface=p0 mac=b8:3f:d2:9a:20:00"
        " ipv4=192.168.100.2 ipv6=fe80::ba3f:d2ff:fe9a:2000 vhca_id=2 "
        "active_rate=200000000000" ODMA_BF3_DPU_CAPS
        "device side=dpu pci=0000:03:00.1 ibdev=mlx5_1 iface=p1 mac=b8:3f:d2:9a:20:01"
        " ipv4=192.168.101.2 ipv6=fe80::ba3f:d2ff:fe9a:2001 vhca_id=3 "
        "active_rate=200000000000" ODMA_BF3_DPU_CAPS
        "# representors of host functions, listed by the DPU PFs\n"
        "rep parent=03:00.0 pci=0000:b1:00.0 vuid=MT2306XZ00BF3ODMAHOSTPF0 func=pf\n"
        "rep parent=03:00.0 pci=0000:b1:00.2 vuid=MT2306XZ00BF3ODMAHOSTPF0VF0 func=vf\n"
        "rep parent=03:00.0 pci=0000:b1:00.3 vuid=MT2306XZ00BF3ODMAHOSTPF0VF1 func=vf\n"
        "rep parent=03:00.0 pci=0000:b1:00.0 vuid=MT2306XZ00BF3ODMAHOSTPF0SF0 func=sf\n"
        "rep parent=03:00.0 pci=0000:b2:00.0 vuid=MT2306XZ00BF3ODMAEMUPF0 func=pf net=no "
        "emulated=yes hotplug=yes\n"
        "rep parent=03:00.1 pci=0000:b1:00.1 vuid=MT2306XZ00BF3ODMAHOSTPF1 func=pf\n"
        "rep parent=03:00.1 pci=0000:b1:00.4 vuid=MT2306XZ00BF3ODMAHOSTPF1VF0 func=vf\n";

static const char profile_bf2[] =
        "system bf2\n"
        "device side=host pci=0000:3b:00.0 ibdev=mlx5_2 iface=ens2f0 mac=0c:42:a1:5e:30:00"
        " ipv4=10.0.0.1 ipv6=fe80::e42:a1ff:fe5e:3000 vhca_id=0 "
        "active_rate=100000000000" ODMA_BF2_HOST_CAPS
        "device side=host pci=0000:3b:00.1 ibdev=mlx5_3 iface=ens2f1 mac=0c:42:a1:5e:30:01"
        " ipv4=10.0.1.1 ipv6=fe80::e42:a1ff:fe5e:3001 vhca_id=1 "
        "active_rate=100000000000" ODMA_BF2_HOST_CAPS
        "device side=dpu pci=0000:03:00.0 ibdev=mlx5_0 iface=p0 mac=0c:42:a1:5e:40:00"
        " ipv4=10.0.0.2 ipv6=fe80::e42:a1ff:fe5e:4000 vhca_id=2 "
        "active_rate=100000000000" ODMA_BF2_DPU_CAPS
        "device side=dpu pci=0000:03:00.1 ibdev=mlx5_1 iface=p1 mac=0c:42:a1:5e:40:01"
        " ipv4=10.0.1.2 ipv6=fe80::e42:a1ff:fe5e:4001 vhca_id=3 "
        "active_rate=100000000000" ODMA_BF2_DPU_CAPS
        "rep parent=03:00.0 pci=0000:3b:00.0 vuid=MT2048X00BF2ODMAHOSTPF0 func=pf\n"
        "rep parent=03:00.0 pci=0000:3b:00.2 vuid=MT2048X00BF2ODMAHOSTPF0VF0 func=vf\n"
        "rep parent=03:00.0 pci=0000:3b:00.0 vuid=MT2048X00BF2ODMAHOSTPF0SF0 func=sf\n"
        "rep parent=03:00.1 pci=0000:3b:00.1 vuid=MT2048X00BF2ODMAHOSTPF1 func=pf\n";

/* ConnectX-6 Dx: a two-port 100 Gb/s host adapter; no DPU side, no Comch, no DMA memcpy task. */
static const char profile_cx6dx[] =
        "system cx6dx\n"
        "device side=host pci=0000:08:00.0 ibdev=mlx5_0 iface=ens5f0np0 mac=a0:88:c2:11:22:30"
        " ipv4=172.16.0.1 ipv6=fe80::a288:c2ff:fe11:2230 active_rate=100000000000 memcpy=no"
        " clock_free_running=yes clock_real_time=yes export_rdma=yes "
        "from_export_rdma=yes" ODMA_RDMA_CAPS "\n"
        "device side=host pci=0000:08:00.1 ibdev=mlx5_1 iface=ens5f1np1 mac=a0:88:c2:11:22:31"
        " ipv4=172.16.1.1 ipv6=fe80::a288:c2ff:fe11:2231 active_rate=100000000000 memcpy=no"
        " clock_free_running=yes clock_real_time=yes export_rdma=yes "
        "from_export_rdma=yes" ODMA_RDMA_CAPS "\n";

/* ConnectX-7: a two-port 200 Gb/s host adapter; no DPU side, no Comch, no DMA memcpy task. */
static const char profile_cx7[] =
        "system cx7\n"
        "device side=host pci=0000:41:00.0 ibdev=mlx5_0 iface=ens4f0np0 mac=94:6d:ae:3c:50:00"
        " ipv4=172.16.2.1 ipv6=fe80::966d:aeff:fe3c:5000 active_rate=200000000000 memcpy=no"
        " clock_free_running=yes clock_real_time=yes export_rdma=yes "
        "from_export_rdma=yes" ODMA_RDMA_CAPS "\n"
        "device side=host pci=0000:41:00.1 ibdev=mlx5_1 iface=ens4f1np1 mac=94:6d:ae:3c:50:01"
        " ipv4=172.16.3.1 ipv6=fe80::966d:aeff:fe3c:5001 active_rate=200000000000 memcpy=no"
        " clock_free_running=yes clock_real_time=yes export_rdma=yes "
        "from_export_rdma=yes" ODMA_RDMA_CAPS "\n";

static const struct odma_profile_info profile_table[] = {
	{ .name = "bf3",
	  .device = "BlueField-3 DPU (host PFs and the Arm side)",
	  .text = profile_bf3 },
	{ .name = "bf2",
	  .device = "BlueField-2 DPU (host PFs and the Arm side)",
	  .text = profile_bf2 },
	{ .name = "cx7", .device = "ConnectX-7 adapter (host PFs only)", .text = profile_cx7 },
	{ .name = "cx6dx",
	  .device = "ConnectX-6 Dx adapter (host PFs only)",
	  .text = profile_cx6dx },
	{ .name = "nic",
	  .alias_of = "cx6dx",
	  .device = "ConnectX-6 Dx adapter (host PFs only)",
	  .text = profile_cx6dx },
};
#define PROFILE_COUNT (sizeof(profile_table) / sizeof(profile_table[0]))

const struct odma_profile_info *odma_profile_info_at(unsigned int i)
{
	return i < PROFILE_COUNT ? &profile_table[i] : NULL;
}

const struct odma_profile_info *odma_profile_info(const char *name)
{
	for (size_t i = 0; name != NULL && i < PROFILE_COUNT; i++)
		if (strcmp(name, profile_table[i].name) == 0)
			return &profile_table[i];
	return NULL;
}

const char *odma_profile_builtin(const char *name)
{
	const struct odma_profile_info *p = odma_profile_info(name);

	return p != NULL ? p->text : NULL;
}

void odma_profile_names(char *out, size_t len)
{
	size_t used = 0;

	if (len == 0)
		return;
	out[0] = '\0';
	for (size_t i = 0; i < PROFILE_COUNT && used < len; i++) {
		const struct odma_profile_info *p = &profile_table[i];
		int n = p->alias_of != NULL
		                ? snprintf(out + used, len - used, "%s%s = %s", i ? ", " : "",
		                           p->name, p->alias_of)
		                : snprintf(out + used, len - used, "%s%s", i ? ", " : "", p->name);

		used += n > 0 ? (size_t)n : 0;
	}
}
