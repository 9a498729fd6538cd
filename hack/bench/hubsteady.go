package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"
)

// hubReadyResync is the hub's resync of a Ready order (KeystoneUser,
// KeystoneRoleAssignment, KeystoneApplicationCredential: 10 min, no flag;
// docs/reference/keystoneuser.md "What is detected how fast"). A -steady
// window shorter than it can miss a cycle.
const hubReadyResync = 10 * time.Minute

// measureHubSteady counts, over the -steady window after Ready, the Keystone
// requests (hub and K-ORC, by class) and hashing logins per order, and the
// Keystone process's CPU seconds, into m and a note; orders is 4N.
func (b *bench) measureHubSteady(ctx context.Context, orders int, m map[string]float64) (string, error) {
	if b.steady <= 0 {
		return "", nil
	}
	ksPid, err := b.stack.Pid("keystone")
	if err != nil {
		return "", err
	}
	c0, r0, l0 := b.keystoneProxy.Counts(), b.keystoneProxy.CountsByResource(), b.keystoneProxy.CountsByClass()
	cpu0, err := cpuSecondsOf(ksPid)
	if err != nil {
		return "", err
	}
	start := time.Now()
	select {
	case <-time.After(b.steady):
	case <-ctx.Done():
		return "", ctx.Err()
	}
	cpu1, err := cpuSecondsOf(ksPid)
	if err != nil {
		return "", err
	}
	window := time.Since(start)
	total := b.keystoneProxy.Counts().Sub(c0).Total()
	logins := b.keystoneProxy.CountsByClass().Sub(l0)
	var hashing, admin int64
	for class, v := range logins {
		if hashingLogin(class) {
			hashing += v
		}
		if class == loginAdminPassword {
			admin += v
		}
	}
	m[mBackendSteady] = float64(total) / float64(orders)
	m[mSteadyOrderHour] = perOrderPer(total, orders, window, time.Hour)
	m[mHashOrderDay] = perOrderPer(hashing, orders, window, 24*time.Hour)
	m[mHashAdminOrderDay] = perOrderPer(admin, orders, window, 24*time.Hour)
	m[mKeystoneCPUHour] = (cpu1 - cpu0) * float64(time.Hour) / float64(window)
	note := fmt.Sprintf("steady %s (hub ready resync %s, no flag%s): Keystone %s; logins %s",
		window.Round(time.Second), hubReadyResync, shortWindow(window),
		topWrites(collapseIDs(b.keystoneProxy.CountsByResource().Sub(r0)), 6), describeLogins(logins))
	b.logf("%s / %s: %s", setHub, runnerOrderhub, note)
	return note, nil
}

// shortWindow warns when the window is shorter than one ready resync.
func shortWindow(w time.Duration) string {
	if w >= hubReadyResync {
		return ""
	}
	return "; window shorter than one resync: undercounts"
}

// describeLogins is "3 login password, 1 login token", classes sorted;
// "none" when empty.
func describeLogins(c map[string]int64) string {
	var keys []string
	for k, v := range c {
		if v > 0 {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return "none"
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d %s", c[k], k))
	}
	return strings.Join(parts, ", ")
}
