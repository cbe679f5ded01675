/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Convenience macros for getting/setting struct scx_enums instances.
 *
 * Copyright (c) 2024 Meta Platforms, Inc. and affiliates.
 */
#ifndef __SCX_ENUMS_BPF_H
#define __SCX_ENUMS_BPF_H

#include "enums.autogen.bpf.h"

#endif /* __SCX_ENUMS_BPF_H */
