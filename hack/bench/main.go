// Command bench times orderhub side by side with its peers on one local
// stack (internal/testenv) in one run, and prints a table with ratios
// (docs/performance.md):
//
//	go run ./hack/bench [-n 200[,1000,5000]] [-repeat 3] [-sets projects,cinder,topology] [-steady 30s] [-json]
//	go run ./hack/bench -sets hub -n 500 [-repeat 1] [-steady 10m] [-hash-rounds 12]
//
// Identity sets (N Projects; the Cinder set of config/samples/identity) are
// timed for `orderhub identity`, the K-ORC v2.6.0 manager, the openstack CLI
// one process per call, and the Keystone floor. The topology set (1
// exchange, N queues, N bindings, a vhost, a user, a permission and a
// policy) is timed for `orderhub topology`, the upstream
// messaging-topology-operator v1.20.1 (hack/tools.sh mto), the broker floor
// and the Kubernetes floor. The hub set (N KeystoneApplicationCredentials,
// each with its KeystoneUser, KeystoneProject and KeystoneRoleAssignment)
// runs alone, on a stack with K-ORC, ESO and OpenBao: `orderhub hub` has
// no peer operator, so it reports the hub's own cost beside K-ORC's and
// ESO's (hub.go), and against a Keystone floor (hubfloor.go) and the same
// K-ORC objects created without the hub (korcalone.go).
//
// Every controller runs as its own process in a fresh namespace, with its
// kubeconfig and its backend (Keystone, the management API) behind counting
// reverse proxies (testenv.CountingProxy). Per controller the bench reports
// apply→Ready, backend requests per object while applying and over the
// steady window after Ready, apiserver writes per object while applying,
// the process's CPU seconds while applying and its peak RSS, and the time
// from deleting every object until all are gone. With -repeat each figure
// is the median over the repeats.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/c5c3/orderhub/internal/testenv"
)

type bench struct {
	n, cliSample int
	steady       time.Duration
	// resync, when set, is orderhub identity's --resync-period, and its
	// runs measure one resync window (measureResync).
	resync time.Duration
	// concurrency, when set, is the --concurrency of orderhub identity and
	// topology (0: their default).
	concurrency int
	// hubPprof is the hub's --pprof-bind-address in the hub set (empty: off).
	hubPprof string
	// foreign, when set, is how many Secrets of 500 KiB the hub set creates in
	// an unrelated namespace before its orders (measureForeign).
	foreign int
	// hashRounds is the stack Keystone's [identity] password_hash_rounds
	// (-hash-rounds; 0: testenv's default, 4).
	hashRounds int
	// runners, when set, are the only runners of the identity and topology
	// sets that run (nil: all of them).
	runners []string
	timeout time.Duration
	// deleteTimeout bounds a controller's deletion; past it the run notes
	// the deletion as incomplete and goes on.
	deleteTimeout time.Duration
	// deleteStall ends a controller's deletion early when no object went
	// away for this long (a deletion the backend refuses never finishes).
	deleteStall time.Duration
	repo        string
	orderhub    string
	mtoDir      string
	// oshCheckout is the OpenStack-Helm checkout of the osh-python runner
	// (-osh-checkout; empty: the runner is skipped).
	oshCheckout string
	logDir      string
	runID       string
	seq         int

	stack         *testenv.Stack
	kube          client.Client
	keystoneProxy *testenv.CountingProxy
	brokerProxy   *testenv.CountingProxy
}

func (b *bench) logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "[bench %s] %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

// concurrencyArgs is the orderhub controllers' --concurrency flag when
// -concurrency is set (none: their default).
func (b *bench) concurrencyArgs() []string {
	if b.concurrency <= 0 {
		return nil
	}
	return []string{"--concurrency=" + strconv.Itoa(b.concurrency)}
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run() error {
	// The bench's own clients log nothing (controller-runtime warns otherwise).
	ctrllog.SetLogger(logr.Discard())
	var b bench
	var repeat int
	var setsFlag, orderhubBin, nFlag string
	var asJSON bool
	var jsonOut, runnersFlag string
	flag.StringVar(&nFlag, "n", "200", "N: Projects in the projects set, queues (and bindings) in the topology set, application credentials in the hub set; "+
		"a comma-separated list (200,1000,5000) runs every set at each N and adds a table of the cost per object by N.")
	flag.IntVar(&repeat, "repeat", 3, "Run every set this many times; each figure is the median.")
	flag.StringVar(&setsFlag, "sets", strings.Join([]string{setProjects, setCinder, setTopology}, ","),
		"Comma-separated sets to run: projects, cinder, topology; or hub alone (N application credentials with their orders); or logins alone (N password and N application-credential logins: Keystone's CPU per hashing login at -hash-rounds).")
	flag.IntVar(&b.concurrency, "concurrency", 0, "--concurrency of orderhub identity and topology: resources of one kind reconciled in parallel (0: their default).")
	flag.DurationVar(&b.steady, "steady", 30*time.Second, "Steady-state window after all Ready, over which backend requests are counted (0: skip).")
	flag.DurationVar(&b.resync, "resync", 0, "Forced resync period of orderhub identity; when set, its runs also count the Keystone requests of one period from 1.5 periods after Ready on, when every object resyncs once per period. 0: off (the default period, 30m).")
	flag.IntVar(&b.cliSample, "cli-sample", 10, "openstack CLI calls timed for the projects set; the time is extrapolated to N.")
	flag.DurationVar(&b.timeout, "timeout", 60*time.Minute, "Longest wait for a set to be Ready, or gone after deletion.")
	flag.DurationVar(&b.deleteTimeout, "delete-timeout", 15*time.Minute, "Longest wait for a controller's deletion; past it the row notes it as incomplete. 0, in the hub set: no deletion (for one N per run at large N; the stack goes with the run).")
	flag.DurationVar(&b.deleteStall, "delete-stall", 3*time.Minute, "A controller's deletion during which no object went away for this long is noted as incomplete.")
	flag.StringVar(&orderhubBin, "orderhub", "", "orderhub binary (default: built from this checkout into the log folder).")
	flag.BoolVar(&asJSON, "json", false, "Print JSON lines (every run and every median) instead of the table.")
	flag.StringVar(&b.hubPprof, "hub-pprof", "", "In the hub set, serve the hub's Go profiles here (--pprof-bind-address, e.g. 127.0.0.1:6060) to profile it while it runs.")
	flag.IntVar(&b.foreign, "foreign-secrets", 0, "In the hub set, create this many Secrets of 500 KiB in a namespace the hub does not serve, once the hub runs, and report its resident-set growth beside ESO's (0: skip).")
	flag.IntVar(&b.hashRounds, "hash-rounds", 0, "The stack Keystone's [identity] password_hash_rounds (bcrypt cost, 4 to 31) for the passwords written after start; "+
		"0: the stack's 4. Keystone's own default is 12 (keystone/conf/identity.py); the bootstrapped admin keeps a cost of 4.")
	flag.StringVar(&jsonOut, "json-out", "", "Also write the JSON lines to this file.")
	flag.StringVar(&runnersFlag, "runners", "", "Comma-separated runners to run (identity and topology: floor, lookup-floor, kube-floor, both-floors, finalizer-floors, orderhub, k-orc, mto, osh-python, cli; hub: floor, k-orc-alone, orderhub; default all): "+
		"a large N with the peers left out; × floor is taken over the plain floors that ran (floor, kube-floor), and a ratio with none, or without the orderhub row, is left empty.")
	flag.StringVar(&b.oshCheckout, "osh-checkout", "", "An OpenStack-Helm checkout: the topology set also runs its Python reference controller (runner osh-python, rabbitmq/templates/bin/_rabbitmq_topology_controller.py.tpl, "+
		"with Debian's python3, python3-kubernetes and python3-requests). Empty: that runner is skipped with a note.")
	flag.Parse()
	if runnersFlag != "" {
		for _, r := range strings.Split(runnersFlag, ",") {
			if !slices.Contains([]string{runnerFloor, runnerKubeFloor, runnerBothFloors, runnerFinalizerFloors, runnerLookupFloor, runnerOrderhub, runnerKORC, runnerKORCAlone, runnerMTO, runnerOSHPython, runnerCLI}, r) {
				return fmt.Errorf("-runners: unknown runner %q (want floor, kube-floor, both-floors, finalizer-floors, lookup-floor, orderhub, k-orc, k-orc-alone, mto, osh-python or cli)", r)
			}
			b.runners = append(b.runners, r)
		}
	}
	sets := strings.Split(setsFlag, ",")
	for _, s := range sets {
		if !slices.Contains([]string{setProjects, setCinder, setTopology, setHub, setLogins}, s) {
			return fmt.Errorf("-sets: unknown set %q (want projects, cinder, topology, hub or logins)", s)
		}
	}
	// The logins set runs Keystone alone.
	loginsSet := slices.Contains(sets, setLogins)
	if loginsSet && len(sets) > 1 {
		return errors.New("-sets: the logins set runs alone (its stack is Keystone only)")
	}
	// The hub set's stack runs K-ORC and ESO for every namespace, which
	// would also reconcile the K-ORC runner's objects of the identity sets.
	hubSet := slices.Contains(sets, setHub)
	if err := checkHubRunners(hubSet, b.runners); err != nil {
		return err
	}
	if hubSet && len(sets) > 1 {
		return errors.New("-sets: the hub set runs alone (its stack's K-ORC would also reconcile the identity sets' K-ORC objects)")
	}
	var ns []int
	for _, f := range strings.Split(nFlag, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return fmt.Errorf("-n: %q is not a positive number", f)
		}
		ns = append(ns, n)
	}
	if hubSet && b.deleteTimeout == 0 && (len(ns) > 1 || repeat > 1) {
		return errors.New("-delete-timeout 0: one N and one repeat per run (the next run's hub would inherit the orders left behind)")
	}
	if b.hashRounds != 0 && (b.hashRounds < 4 || b.hashRounds > 31) {
		return errors.New("-hash-rounds must be between 4 and 31 (bcrypt)")
	}
	if repeat < 1 || b.cliSample < 1 {
		return errors.New("-repeat and -cli-sample must be at least 1")
	}
	identity := slices.Contains(sets, setProjects) || slices.Contains(sets, setCinder)
	topology := slices.Contains(sets, setTopology)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	if b.repo, err = testenv.RepoRoot(); err != nil {
		return err
	}
	if b.logDir, err = os.MkdirTemp("", "orderhub-bench-"); err != nil {
		return err
	}
	b.runID = fmt.Sprintf("%06d", time.Now().UnixNano()/1e3%1e6)
	b.logf("logs in %s", b.logDir)
	env, err := toolsEnv(b.repo)
	if err != nil {
		return err
	}
	crds := []string{filepath.Join(b.repo, "config", "crd", "bases")}
	if identity || hubSet {
		if _, err := os.Stat(filepath.Join(env["ORDERHUB_KORC_DIR"], "manager")); err != nil {
			return errors.New("the K-ORC manager is not built: run `make tools` (or hack/tools.sh korc)")
		}
	}
	if identity {
		if _, err := exec.LookPath("openstack"); err != nil {
			return errors.New("no openstack CLI: run `make tools` (hack/tools.sh debs)")
		}
		crds = append(crds, filepath.Join(env["ORDERHUB_KORC_DIR"], "crds"))
	}
	if topology && (b.runners == nil || slices.Contains(b.runners, runnerMTO)) {
		b.mtoDir = env["ORDERHUB_MTO_DIR"]
		if _, err := os.Stat(filepath.Join(b.mtoDir, "manager")); err != nil {
			return errors.New("the messaging-topology-operator is not built: run `make tools` (or hack/tools.sh mto)")
		}
		crds = append(crds, filepath.Join(b.mtoDir, "crds"))
	}
	if b.orderhub = orderhubBin; b.orderhub == "" {
		b.orderhub = filepath.Join(b.logDir, "orderhub")
		b.logf("building %s", b.orderhub)
		build := exec.CommandContext(ctx, "go", "build", "-o", b.orderhub, "./cmd/orderhub")
		build.Dir = b.repo
		if out, err := build.CombinedOutput(); err != nil {
			return fmt.Errorf("go build ./cmd/orderhub: %v\n%s", err, out)
		}
	}

	b.logf("starting the stack (identity %v, topology %v, hub %v)", identity, topology, hubSet)
	so := testenv.Options{Kube: !loginsSet, Keystone: identity || loginsSet, RabbitMQ: topology}
	if hubSet {
		// K-ORC's and ESO's CRDs come with them.
		so = testenv.HubStackOptions()
	}
	so.CRDPaths = crds
	so.KeystoneHashRounds = b.hashRounds
	so.Logf = func(f string, a ...any) { b.logf("testenv: "+f, a...) }
	b.stack, err = testenv.Start(ctx, so)
	if err != nil {
		return fmt.Errorf("start the stack: %w", err)
	}
	defer b.stack.Stop()
	kubeScheme := scheme.Scheme
	if hubSet {
		if kubeScheme, err = testenv.HubScheme(); err != nil {
			return err
		}
	}
	if b.stack.Kube != nil {
		if b.kube, err = client.New(b.stack.Kube.Config, client.Options{Scheme: kubeScheme}); err != nil {
			return err
		}
	}
	if identity || hubSet {
		admin := b.stack.Keystone.AdminUser
		if b.keystoneProxy, err = testenv.NewCountingProxy(b.stack.Keystone.URL, testenv.CountingProxyOptions{RewriteHost: true,
			Classify: func(r *http.Request, body []byte) string {
				return keystoneLoginClass(r.Method, r.URL.Path, body, admin)
			}}); err != nil {
			return err
		}
		defer b.keystoneProxy.Close()
	}
	if topology {
		if b.brokerProxy, err = testenv.NewCountingProxy(b.stack.RabbitMQ.URL, testenv.CountingProxyOptions{}); err != nil {
			return err
		}
		defer b.brokerProxy.Close()
	}
	if hubSet {
		if err := b.seedHub(ctx, ns, repeat); err != nil {
			return fmt.Errorf("seed the hub set's ControlPlane: %w", err)
		}
	}

	machine := machineInfo()
	b.logf("machine: %s", machine)
	var runs []result
	var repeats []int
	for _, n := range ns {
		b.n = n
		for rep := 1; rep <= repeat; rep++ {
			for _, set := range sets {
				b.logf("N=%d, repeat %d/%d: set %s", n, rep, repeat, set)
				var rs []result
				switch set {
				case setTopology:
					rs, err = b.runTopologySet(ctx, rep)
				case setHub:
					rs, err = b.runHubSet(ctx, rep)
				case setLogins:
					rs, err = b.runLoginCost(ctx, rep)
				default:
					rs, err = b.runIdentitySet(ctx, set, rep)
				}
				for _, r := range rs {
					r.N = n
					runs = append(runs, r)
					repeats = append(repeats, rep)
				}
				if err != nil {
					return err
				}
			}
		}
	}
	med := medians(runs)
	if jsonOut != "" {
		f, err := os.Create(jsonOut)
		if err != nil {
			return err
		}
		err = writeJSON(f, runs, repeats, med)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("-json-out: %w", err)
		}
	}
	if asJSON {
		return writeJSON(os.Stdout, runs, repeats, med)
	}
	fmt.Printf("go run ./hack/bench %s\n", strings.Join(os.Args[1:], " "))
	fmt.Printf("machine: %s\n", machine)
	fmt.Printf("medians of %d run(s); apply→Ready from the first create until every object is Ready\n", repeat)
	writeTable(os.Stdout, med)
	writeGrowth(os.Stdout, med)
	return nil
}

// toolsEnv is what `hack/tools.sh env` prints.
func toolsEnv(repo string) (map[string]string, error) {
	out, err := exec.Command(filepath.Join(repo, "hack", "tools.sh"), "env").Output()
	if err != nil {
		return nil, fmt.Errorf("hack/tools.sh env: %w", err)
	}
	env := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			env[k] = v
		}
	}
	return env, nil
}

// machineInfo: CPUs, CPU model, RAM and the load average at start.
func machineInfo() string {
	model := "unknown CPU"
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	ram := "?"
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		if v, err := parseStatusKiB(string(b), "MemTotal"); err == nil {
			ram = fmt.Sprintf("%.1f GiB", v/1024)
		}
	}
	load := "?"
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		load = strings.Join(strings.Fields(string(b))[:3], " ")
	}
	return fmt.Sprintf("nproc %d, %s, RAM %s, load average at start %s", runtime.NumCPU(), model, ram, load)
}
