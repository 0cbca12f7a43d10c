/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * doca_caps' help text around its flags: `doca_caps --help` prints it, `doca_caps --man`
 * makes the man page of the same text (tools/common/odma_help.h).
 */
#include "caps_doc.h"

const char caps_synopsis[] =
        "[--list-devs|--list-rep-devs|--list-libs] [-p ADDR] [--lib NAME] [--json]";

const char caps_description[] =
        "Prints the devices that doca_devinfo_create_list() returns in this process and, for\n"
        "each, the values a program would read through the public capability calls: whether\n"
        "the DMA memcpy task is supported, the largest buffer (max_buf_size), the longest\n"
        "buffer list (max_buf_list_len), the largest task pool (max_num_tasks, read from a\n"
        "temporary DMA context), the task queue depth (queue_depth: tasks a DMA context\n"
        "holds in flight before submit returns DOCA_ERROR_AGAIN; DOCA has no query for it,\n"
        "odma reads its profile), and whether the device can export memory over PCI and import\n"
        "such an export; for DOCA Core's other parts, whether a sync event can be exported\n"
        "across PCIe, created from such an export and waited on by a task, whether the\n"
        "cache-invalidate task exists and its largest buffer, and which NIC clocks the device\n"
        "has; the Comch and RDMA limits.\n"
        "\n"
        "Under odma the devices are emulated: they come from the system profile chosen by\n"
        "ODMA_SYSTEM, filtered by ODMA_SIDE (see ENVIRONMENT); the report's first line names\n"
        "the profile and the device it emulates. The tool shows exactly what\n"
        "a DOCA program started with the same environment would find. Each device is named by\n"
        "its PCI address, IB device name, network interface, side (host or dpu; DOCA has no\n"
        "call for it: dpu for a device that lists representors) and PCI function type.\n"
        "Without a --list-* flag the full report is printed:\n"
        "every device with its capabilities.";

const char caps_epilogue[] =
        "JSON OUTPUT\n"
        "  --json prints one JSON object instead of text: odma_version, and devices (objects\n"
        "  with pci_addr, ibdev_name, iface_name, side, pci_func_type and capabilities, one\n"
        "  object per library, or representors) and/or libraries.\n"
        "\n"
        "ENVIRONMENT\n"
        "  ODMA_SYSTEM   the emulated system: bf3 (default), bf2, cx7, cx6dx, nic (= cx6dx),\n"
        "                or the path of a profile file\n"
        "  ODMA_SIDE     host or dpu: only that side's devices; unset: both\n"
        "\n"
        "EXIT STATUS\n"
        "  0 on success; 1 when no device list can be read or --pci-addr matches nothing;\n"
        "  2 for a bad command line.\n"
        "\n"
        "EXAMPLES\n"
        "  doca_caps\n"
        "  ODMA_SIDE=dpu doca_caps --list-rep-devs\n"
        "  doca_caps --json -p 03:00.0 --lib dma\n"
        "  doca_caps --lib rdma\n"
        "\n"
        "SEE ALSO\n"
        "  odma(1), odma-errors(1), docs/profiles.md, docs/differences-from-hardware.md";
