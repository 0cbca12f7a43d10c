/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */

/**
 * @file doca_build_config.h
 * @brief Build-time role and architecture of the program being compiled.
 *
 * DOCA programs pick their role at build time: a program compiled with
 * `-DDOCA_ARCH_DPU` is a DPU (BlueField Arm) program, anything else is a host
 * program. odma keeps that convention so `#ifdef DOCA_ARCH_DPU` /
 * `#ifdef DOCA_ARCH_HOST` in application code select the same branches.
 */
#ifndef DOCA_BUILD_CONFIG_H_
#define DOCA_BUILD_CONFIG_H_

#if !defined(DOCA_ARCH_DPU) && !defined(DOCA_ARCH_HOST)
/** Host build unless the program asked for a DPU build. */
#define DOCA_ARCH_HOST
#endif

#if defined(__aarch64__) || defined(__arm__)
/** The CPU architecture of this build is Arm. */
#define DOCA_ARCH_ARM
#else
/** The CPU architecture of this build is x86. */
#define DOCA_ARCH_X86
#endif

/** odma emulates a BlueField-3-like part by default, not a BlueField-2. */
#define DOCA_ARCH_DPU_BF2 0

#endif /* DOCA_BUILD_CONFIG_H_ */
