// SPDX-License-Identifier: GPL-2.0
/* The replay's policies by name, and which of them are references. */
#include <string.h>
#include "replay_result.h"

static const char *const policy_names[RP__MAX] = {
	[RP_BPFGOV] = "bpfgov",
	[RP_MENU] = "menu",
	[RP_TEO] = "teo",
	[RP_LADDER] = "ladder",
	[RP_LADDER_BAL] = "ladder-balanced",
	[RP_HALTPOLL] = "haltpoll",
	[RP_BPF_MENU] = "bpfgov@menu",
	[RP_BPF_TEO] = "bpfgov@teo",
	[RP_BPF_LADDER] = "bpfgov@ladder",
	[RP_BPF_HALTPOLL] = "bpfgov@haltpoll",
	[RP_SCHEDUTIL] = "schedutil",
	[RP_HWP_34] = "hwp-3/4",
	[RP_HWP_78] = "hwp-7/8",
	[RP_HWP_1] = "hwp-1",
	[RP_HWP_PASSIVE] = "hwp-passive",
	[RP_HWP_AUTO] = "hwp-auto",
};

const char *replay_policy_name(int p)
{
	return p >= 0 && p < RP__MAX ? policy_names[p] : "?";
}

int replay_policy_parse(const char *s)
{
	for (int p = 0; p < RP__MAX; p++)
		if (!strcmp(s, policy_names[p]))
			return p;
	return -1;
}

int replay_policy_is_kernel_ref(int p)
{
	return p == RP_MENU || p == RP_TEO || p == RP_LADDER || p == RP_HALTPOLL;
}

int replay_policy_is_floor_ref(int p)
{
	return p == RP_HWP_AUTO || p == RP_SCHEDUTIL || p == RP_HWP_PASSIVE || p == RP_HWP_34 ||
	       p == RP_HWP_78;
}
