package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"time"
)

// Fault kinds.
const (
	// FaultHub: SIGKILL the hub, start it again.
	FaultHub = "hub"
	// FaultKORC and FaultESO: SIGKILL the K-ORC manager or the External
	// Secrets controller, start it again.
	FaultKORC = "korc"
	FaultESO  = "eso"
	// FaultOpenBao: stop the OpenBao-compatible server (SIGTERM; its file
	// storage is not crash-safe by design of the file backend, a real
	// server's would be Raft), start and unseal it again.
	FaultOpenBao = "openbao"
	// FaultKeystone: SIGKILL Keystone (SQLite in WAL mode survives it),
	// start it again on the same port and database.
	FaultKeystone = "keystone"
	// FaultAPIServer: SIGKILL the management cluster's kube-apiserver,
	// keep it down for Config.Outage, start it again on the same port with
	// the same etcd.
	FaultAPIServer = "apiserver"
)

// AllKinds are every fault kind, in the order the flags list them.
var AllKinds = []string{FaultHub, FaultKORC, FaultESO, FaultOpenBao, FaultKeystone, FaultAPIServer}

// procOf is the stack's server name of each kind.
var procOf = map[string]string{FaultHub: hubProc, FaultKORC: "k-orc", FaultESO: "external-secrets",
	FaultOpenBao: "openbao", FaultKeystone: "keystone", FaultAPIServer: "kube-apiserver"}

func validKind(k string) bool { _, ok := procOf[k]; return ok }

// planned is one fault of the schedule.
type planned struct {
	offset time.Duration
	kind   string
}

// schedule spreads n faults over d: fault i falls at a random point of the
// i-th of n equal slots (leaving the first 10% of the first slot free), so
// the points fall at random phases of the one-minute rotations; the kinds
// are drawn as shuffled rounds of kinds, so every kind occurs about n/len
// times.
func schedule(rng *rand.Rand, d time.Duration, n int, kinds []string) []planned {
	if n == 0 || len(kinds) == 0 {
		return nil
	}
	slot := d / time.Duration(n)
	var out []planned
	var round []string
	for i := 0; i < n; i++ {
		if len(round) == 0 {
			round = append([]string{}, kinds...)
			rng.Shuffle(len(round), func(a, b int) { round[a], round[b] = round[b], round[a] })
		}
		lo := time.Duration(i) * slot
		if i == 0 {
			lo += slot / 10
		}
		hi := time.Duration(i+1) * slot
		out = append(out, planned{offset: lo + time.Duration(rng.Int64N(int64(hi-lo))), kind: round[0]})
		round = round[1:]
	}
	sort.Slice(out, func(a, b int) bool { return out[a].offset < out[b].offset })
	return out
}

// FaultRecord is one injected fault.
type FaultRecord struct {
	At   time.Time `json:"at"`
	Kind string    `json:"kind"`
	// Steps are the application credentials' rotation steps when it
	// struck, per cluster ("gen N steady|rotating|grace").
	Steps string `json:"steps"`
	// Down is how long the server was away (kill to ready again).
	Down  string  `json:"down"`
	DownS float64 `json:"downSeconds"`
	Error string  `json:"error,omitempty"`
}

// inject runs one fault and records it.
func (e *env) inject(ctx context.Context, kind string) FaultRecord {
	e.rec.mu.Lock()
	var steps []string
	for cl, s := range e.rec.steps {
		if cl == "" {
			cl = "management"
		}
		steps = append(steps, cl+": "+s)
	}
	e.rec.mu.Unlock()
	sort.Strings(steps)
	r := FaultRecord{At: time.Now().UTC(), Kind: kind, Steps: strings.Join(steps, "; ")}
	name := procOf[kind]
	start := time.Now()
	var err error
	switch kind {
	case FaultOpenBao:
		err = e.st.Terminate(name, 20*time.Second)
	default:
		err = e.st.Kill(name)
	}
	if err == nil && kind == FaultAPIServer {
		err = sleepUntil(ctx, start.Add(e.cfg.Outage))
	}
	if err == nil {
		err = e.st.Restart(ctx, name)
	}
	r.Down = time.Since(start).Round(100 * time.Millisecond).String()
	r.DownS = time.Since(start).Seconds()
	if err != nil {
		r.Error = err.Error()
		// A server that did not come back ends the soak's meaning; try
		// once more so the rest of the run is not all one outage.
		if !e.st.Running(name) {
			if err2 := e.st.Restart(ctx, name); err2 != nil {
				r.Error += fmt.Sprintf("; second restart: %v", err2)
			}
		}
	}
	e.logf("fault %s (%s): down %s %s", kind, r.Steps, r.Down, r.Error)
	return r
}
