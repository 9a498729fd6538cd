// Package testenv starts the real servers orderhub is tested against, on free
// loopback ports with a private folder each: kube-apiserver + etcd (with the
// project's, K-ORC's and ESO's CRDs), kube-controller-manager (garbage
// collector and namespace controllers), Keystone, RabbitMQ with the management
// plugin, an OpenBao-compatible server (Vault v1.14.1 in dev mode, KV v2 at
// secret/), the K-ORC manager and the External Secrets controller.
//
// Tests, the demo and `hack/stack` use it alike. The binaries come from the
// cache filled by `hack/tools.sh` (`make tools`); Keystone and RabbitMQ from
// Debian packages. Every server is recorded in <Dir>/pids, dies with the
// process that started it, and is stopped in order by Stack.Stop: controllers,
// then the apiserver, then etcd, then the others (epmd last).
package testenv

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Options selects the servers to start. Dependencies are implied: KORC, ESO
// and ControllerManager start Kube, Node starts Kube and ControllerManager;
// KORC does not start Keystone by itself (a K-ORC test without Keystone is
// valid, its objects just wait).
type Options struct {
	// Kube starts etcd and kube-apiserver and installs the CRDs in CRDPaths.
	Kube bool
	// ControllerManager starts kube-controller-manager with the garbage
	// collector and namespace controllers (envtest has neither).
	ControllerManager bool
	// WorkloadControllers adds the Deployment, ReplicaSet, StatefulSet and
	// DaemonSet controllers to kube-controller-manager without a node: pods
	// are created and stay Pending unless a test marks them ready
	// (MarkPodsReady), so rollouts can be driven without Node.
	WorkloadControllers bool
	// Keystone starts a bootstrapped Keystone (admin/admin in Default, region RegionOne).
	Keystone bool
	// RabbitMQ starts a broker with the management plugin.
	RabbitMQ bool
	// OpenBao starts the OpenBao-compatible dev server with KV v2 at secret/;
	// with Kube it also sets up the tenant auth (openbao_auth.go).
	OpenBao bool
	// OpenBaoPersistent makes the OpenBao-compatible server keep its data
	// in a file storage backend under Dir, so Restart brings it back with
	// its mounts, backups and auth (openbao_persistent.go); without it the
	// server runs in dev mode, in memory.
	OpenBaoPersistent bool
	// KORC starts the K-ORC manager and installs its CRDs.
	KORC bool
	// ESO starts the External Secrets controller and installs its CRDs.
	ESO bool
	// Node starts a real node, so pods run: kube-scheduler, containerd and a
	// kubelet registered as NodeName, with a pod network on bridges the stack
	// creates (docs/local-stack.md). It needs root and `hack/tools.sh node`,
	// and one stack on the machine at a time: a second one is refused. With
	// it the apiserver authorizes with Node,RBAC, admits NodeRestriction and
	// ServiceAccount, and the controller manager runs the workload controllers.
	Node bool
	// NodeWait is how long Start waits for another stack's node on this
	// machine to stop before it refuses (0: refuse at once). Test packages
	// that run in parallel (go test -p > 1) set it so they take turns.
	NodeWait time.Duration
	// AuditLog makes the apiserver write an audit log of every request at
	// the Metadata level (who, verb, resource, response code; no bodies) to
	// Kube.AuditLog, JSON lines, with a policy file the stack writes.
	AuditLog bool

	// CRDPaths are files or folders of CRDs to install; default: the
	// repository's config/crd/bases (missing paths are skipped).
	CRDPaths []string
	// Dir is the stack's private folder; default: a new temporary folder,
	// removed by Stop unless ORDERHUB_KEEP_STACK is set.
	Dir string
	// KeystoneLockoutAttempts sets [security_compliance] lockout_failure_attempts,
	// which also makes Keystone count failed logins (default 1000).
	KeystoneLockoutAttempts int
	// KeystonePasswordRegex sets [security_compliance] password_regex: a
	// password that does not match it is refused with 400 when a user is
	// created or its password written (default: no rule). oslo.config
	// expands $: write $$ for a literal dollar sign.
	KeystonePasswordRegex string
	// KeystoneHashRounds sets [identity] password_hash_rounds (bcrypt) for
	// the passwords written after start (default 4, the test speed; Keystone's
	// own default is 12). The bootstrapped admin keeps its hash of 4 rounds.
	KeystoneHashRounds int
	// Logf receives progress lines; default: discarded.
	Logf func(format string, args ...any)
}

// Stack is a running set of servers. Fields of servers not started are nil.
type Stack struct {
	Dir      string
	Kube     *Kube
	Keystone *Keystone
	RabbitMQ *RabbitMQ
	OpenBao  *OpenBao
	// KORC and ESO are the controllers' processes, when started.
	KORC *Controller
	ESO  *Controller
	// Node is the node, when started.
	Node *Node

	node            *nodeRuntime
	nodeToken       string
	kubeletClientCA string

	opts     Options
	tools    tools
	procs    []*proc
	procsMu  *sync.Mutex
	regFile  string
	ownDir   bool
	stopOnce sync.Once
	stopErr  error
}

// Controller is a controller process of the stack (K-ORC, ESO, kube-controller-manager).
type Controller struct {
	// Log is the path of its log file.
	Log string
}

func (s *Stack) logf(format string, args ...any) {
	if s.opts.Logf != nil {
		s.opts.Logf(format, args...)
	}
}

// Start starts the selected servers and waits until each is ready. On error
// everything already started is stopped.
func Start(ctx context.Context, o Options) (st *Stack, err error) {
	if o.Node {
		o.ControllerManager = true
	}
	if o.KORC || o.ESO || o.ControllerManager {
		o.Kube = true
	}
	if o.KeystoneLockoutAttempts == 0 {
		o.KeystoneLockoutAttempts = 1000
	}
	if o.KeystoneHashRounds == 0 {
		o.KeystoneHashRounds = defaultKeystoneHashRounds
	}
	s := &Stack{opts: o, Dir: o.Dir, procsMu: &sync.Mutex{}}
	if s.Dir == "" {
		if s.Dir, err = os.MkdirTemp("", "orderhub-stack-"); err != nil {
			return nil, err
		}
		s.ownDir = true
	} else if err = os.MkdirAll(s.Dir, 0o755); err != nil {
		return nil, err
	}
	// Stop what an earlier run with the same folder left behind, and start
	// from empty data folders: a reused etcd or Keystone database would carry
	// the earlier run's objects (and Keystone's catalog its old port).
	if stopped := killRecorded(s.Dir, 10*time.Second); len(stopped) > 0 {
		s.logf("stopped leftovers of an earlier run: %s", strings.Join(stopped, ", "))
	}
	for _, sub := range []string{"kube", "keystone", "rabbitmq", "openbao", "logs"} {
		if err := os.RemoveAll(filepath.Join(s.Dir, sub)); err != nil {
			return nil, err
		}
	}
	if s.tools, err = findTools(); err != nil {
		return nil, err
	}
	for _, r := range ReapOrphans(s.tools.cache) {
		s.logf("stopped servers of a dead run: %s", r)
	}
	if err = s.register(); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			_ = s.Stop()
		}
	}()
	if o.Node {
		if err = s.acquireNode(s.tools.env); err != nil {
			return nil, fmt.Errorf("node: %w", err)
		}
	}
	// The apiserver and Keystone are the slow starters; start them in parallel
	// with the others and join before the controllers, which need both.
	type result struct {
		what string
		err  error
	}
	var wg sync.WaitGroup
	results := make(chan result, 4)
	run := func(what string, f func(context.Context) error) {
		wg.Add(1)
		go func() { defer wg.Done(); results <- result{what, f(ctx)} }()
	}
	if o.Kube {
		run("kube", s.startKube)
	}
	if o.Keystone {
		run("keystone", s.startKeystone)
	}
	if o.RabbitMQ {
		run("rabbitmq", s.startRabbitMQ)
	}
	if o.OpenBao {
		run("openbao", s.startOpenBao)
	}
	wg.Wait()
	close(results)
	var errs []error
	for r := range results {
		if r.err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", r.what, r.err))
		}
	}
	if err = errors.Join(errs...); err != nil {
		return nil, err
	}
	if o.OpenBao && o.Kube {
		if err = s.configureTenantAuth(ctx); err != nil {
			return nil, fmt.Errorf("openbao tenant auth: %w", err)
		}
	}
	if o.ControllerManager {
		if err = s.startControllerManager(ctx); err != nil {
			return nil, fmt.Errorf("kube-controller-manager: %w", err)
		}
	}
	if o.Node {
		if err = s.startNode(ctx); err != nil {
			return nil, fmt.Errorf("node: %w", err)
		}
	}
	if o.KORC {
		if err = s.startKORC(ctx); err != nil {
			return nil, fmt.Errorf("k-orc: %w", err)
		}
	}
	if o.ESO {
		if err = s.startESO(ctx); err != nil {
			return nil, fmt.Errorf("external-secrets: %w", err)
		}
	}
	return s, nil
}

// Stop stops every server in order (controllers, apiserver, etcd, the rest)
// and waits for each to exit. It is safe to call more than once.
func (s *Stack) Stop() error {
	s.stopOnce.Do(func() {
		// The node first, while the apiserver still answers: its pods are
		// deleted through it, then every host change is undone.
		var errs []error
		if err := s.stopNode(); err != nil {
			errs = append(errs, fmt.Errorf("node teardown: %w", err))
		}
		// Reverse start order within each class: controllers were started last.
		order := func(name string) int {
			switch name {
			case "kube-apiserver":
				return 1
			case "etcd":
				return 2
			case "epmd":
				return 4
			case "kube-controller-manager", "k-orc", "external-secrets":
				return 0
			default:
				return 3
			}
		}
		for class := 0; class <= 4; class++ {
			for i := len(s.procs) - 1; i >= 0; i-- {
				if p := s.procs[i]; order(p.name) == class {
					_ = p.stop(20 * time.Second)
				}
			}
		}
		s.unregister()
		if s.ownDir && os.Getenv("ORDERHUB_KEEP_STACK") == "" {
			errs = append(errs, os.RemoveAll(s.Dir))
		}
		s.stopErr = errors.Join(errs...)
	})
	return s.stopErr
}

// Logs returns the paths of the servers' log files by server name.
func (s *Stack) Logs() map[string]string {
	m := map[string]string{}
	for _, p := range s.procs {
		m[p.name] = p.logPath
	}
	return m
}

// tools are the paths printed by `hack/tools.sh env`, the one place that knows
// the versions and the cache folder.
type tools struct {
	repo, cache, k8sDir, korcDir, esoDir, vault string
	// env is everything `hack/tools.sh env` printed.
	env map[string]string
}

// RepoRoot returns the repository's root: the nearest folder above the
// working directory holding a go.mod of module github.com/c5c3/orderhub.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && strings.HasPrefix(string(b), "module github.com/c5c3/orderhub\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("testenv: not inside the orderhub repository")
		}
		dir = parent
	}
}

func findTools() (tools, error) {
	repo, err := RepoRoot()
	if err != nil {
		return tools{}, err
	}
	out, err := exec.Command(filepath.Join(repo, "hack", "tools.sh"), "env").Output()
	if err != nil {
		return tools{}, fmt.Errorf("hack/tools.sh env: %w", err)
	}
	env := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			env[k] = v
		}
	}
	return tools{repo: repo, cache: env["ORDERHUB_CACHE"], k8sDir: env["ORDERHUB_K8S_DIR"], korcDir: env["ORDERHUB_KORC_DIR"],
		esoDir: env["ORDERHUB_ESO_DIR"], vault: env["ORDERHUB_VAULT"], env: env}, nil
}

// ToolPath returns one of the paths `hack/tools.sh env` prints, by its
// name (ORDERHUB_HELM, ORDERHUB_CRANE, ORDERHUB_K8S_DIR, ...); empty when
// unknown.
func (s *Stack) ToolPath(key string) string { return s.tools.env[key] }

// need fails with the command that builds a missing binary.
func need(path, tool string) error {
	if st, err := os.Stat(path); err != nil || st.IsDir() {
		return fmt.Errorf("%s is not built: run `make tools` (or hack/tools.sh %s)", path, tool)
	}
	return nil
}
