package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/applicationcredential"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/delivery/clusters"
	"github.com/c5c3/orderhub/internal/testenv"
	"github.com/c5c3/orderhub/internal/testenv/consumerpods"
	"github.com/c5c3/orderhub/korc"
)

// The soak's fixed names.
const (
	hubNS      = "orderhub-system"
	planeNS    = "openstack"
	planeName  = "cp"
	tenantNS   = "tenant-a"
	targetName = "edge-1"
	// serviceName is the KeystoneService whose account password rotates.
	serviceName = "soak-svc"
	// rotationName is the CredentialRotation rotating it.
	rotationName = "soak-rotate"
	// The order kinds' base names: orderName gives each cluster its own,
	// since two orders never share a Keystone user or project name.
	userBase    = "user"
	projectBase = "project"
	memberBase  = "member"
	acBase      = "ac"
	// hubProc is the hub's server name in the stack (Stack.Kill/Restart).
	hubProc = "orderhub-hub"
	// rotationEvery is how often the CredentialRotation requests a rotation.
	rotationEvery = time.Minute
	// acInterval and acGrace are the application credentials' schedule.
	acInterval = time.Minute
	acGrace    = 30 * time.Second
	// readyTimeout bounds the wait for the orders at the start, and
	// convergeTimeout the wait after the last fault and after deletion.
	readyTimeout    = 6 * time.Minute
	convergeTimeout = 10 * time.Minute
	// nodeWait is how long the start waits for another stack's node.
	nodeWait = 30 * time.Minute
)

// orderName is the name of the order of base on cluster cl ("" the
// management cluster): soak-<base> there, soak-edge-<base> on the target.
func orderName(cl, base string) string {
	if cl == "" {
		return "soak-" + base
	}
	return "soak-edge-" + base
}

// Config is one soak run.
type Config struct {
	// Duration is how long the orders rotate under faults.
	Duration time.Duration
	// Faults is the number of fault events; Kinds the kinds drawn from
	// (AllKinds).
	Faults int
	Kinds  []string
	// Seed seeds the fault schedule.
	Seed int64
	// Outage is how long an apiserver fault keeps the apiserver down.
	Outage time.Duration
	// Pods runs consumer pods on the management stack's node
	// (testenv.Options.Node; docs/soak.md, "Consumer pods").
	Pods bool
	// Dir is the stack's folder (empty: a temporary one).
	Dir string
	// Build builds bin/orderhub first (also done when it is missing).
	Build bool
	// Logf receives progress lines.
	Logf func(format string, args ...any)
}

// DefaultConfig is a 5-minute run with 6 faults of every kind (Seed: 1)
// and consumer pods.
func DefaultConfig() Config {
	return Config{Duration: 5 * time.Minute, Faults: 6, Kinds: AllKinds, Seed: 1, Outage: 30 * time.Second, Pods: true,
		Build: true, Logf: func(string, ...any) {}}
}

// env is a running soak: the stacks, the clients and the hub's command.
type env struct {
	cfg            Config
	st, target     *testenv.Stack
	mgmt, tgt      client.Client
	identity       *gophercloud.ServiceClient
	baselineUsers  map[string]bool
	baselinePaths  map[string]bool
	clusters       map[string]client.Client // "" and targetName
	logf           func(string, ...any)
	rec            *recorder
	lastFaultEnded time.Time
	// sink receives the consumer pods' reports (Config.Pods).
	sink *consumerpods.Sink
}

// Run runs one soak and returns its report. The error is about the run
// itself (a stack that does not start, orders that never become Ready);
// the report's Problems are about what the hub did.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	for _, k := range cfg.Kinds {
		if !validKind(k) {
			return nil, fmt.Errorf("unknown fault kind %q (known: %v)", k, AllKinds)
		}
	}
	if cfg.Faults < 0 || cfg.Duration <= 0 {
		return nil, errors.New("-faults must not be negative and -duration must be positive")
	}
	repo, err := testenv.RepoRoot()
	if err != nil {
		return nil, err
	}
	bin := filepath.Join(repo, "bin", "orderhub")
	if _, err := os.Stat(bin); err != nil || cfg.Build {
		cfg.Logf("building %s", bin)
		cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/orderhub")
		cmd.Dir, cmd.Stdout, cmd.Stderr = repo, os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("go build ./cmd/orderhub: %w", err)
		}
	}
	e := &env{cfg: cfg, logf: cfg.Logf}
	so := testenv.HubStackOptions()
	so.OpenBaoPersistent = true
	so.Dir = cfg.Dir
	so.Logf = cfg.Logf
	if cfg.Pods {
		so.Node, so.NodeWait = true, nodeWait
	}
	startCtx, cancel := context.WithTimeout(ctx, testenv.HubStartTimeout+so.NodeWait)
	defer cancel()
	if e.st, err = testenv.Start(startCtx, so); err != nil {
		return nil, fmt.Errorf("management stack: %w", err)
	}
	defer func() { _ = e.st.Stop() }()
	to := testenv.Options{Kube: true, Logf: cfg.Logf}
	if cfg.Dir != "" {
		to.Dir = filepath.Join(cfg.Dir, "target")
	}
	if e.target, err = testenv.Start(startCtx, to); err != nil {
		return nil, fmt.Errorf("target cluster: %w", err)
	}
	defer func() { _ = e.target.Stop() }()
	if err := e.connect(ctx); err != nil {
		return nil, err
	}
	if err := e.seed(ctx); err != nil {
		return nil, err
	}
	if err := e.startHub(ctx, bin); err != nil {
		return nil, err
	}
	// The hub first, so it is gone before the apiserver at Stop.
	defer func() { _ = e.st.Terminate(hubProc, 15*time.Second) }()
	if err := e.order(ctx); err != nil {
		return nil, err
	}
	return e.soak(ctx)
}

func (e *env) connect(ctx context.Context) error {
	scheme, err := testenv.HubScheme()
	if err != nil {
		return err
	}
	if e.mgmt, err = client.New(e.st.Kube.Config, client.Options{Scheme: scheme}); err != nil {
		return err
	}
	if e.tgt, err = client.New(e.target.Kube.Config, client.Options{Scheme: scheme}); err != nil {
		return err
	}
	e.clusters = map[string]client.Client{"": e.mgmt, targetName: e.tgt}
	e.identity, err = e.st.AdminIdentity(ctx)
	return err
}

// seed creates the hub namespace, the plane (assigning tenant-a on both
// clusters, role member) and the target's registration Secret, and
// records what Keystone and OpenBao hold before any order.
func (e *env) seed(ctx context.Context) error {
	if err := e.mgmt.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: hubNS}}); err != nil {
		return err
	}
	if err := e.st.SeedPlane(ctx, e.mgmt, testenv.PlaneSeed{Namespace: planeNS, Name: planeName,
		PasswordSecret: controlplane.DefaultPasswordSecret, PasswordKey: controlplane.DefaultPasswordKey,
		Spec: c5c3v1alpha1.ControlPlaneSpec{NamespaceAssignments: []c5c3v1alpha1.NamespaceAssignment{
			{Cluster: "", Namespace: tenantNS, AllowedRoles: []c5c3v1alpha1.KeystoneName{"member"}, Domains: []c5c3v1alpha1.KeystoneName{controlplane.DefaultAdminDomain}},
			{Cluster: targetName, Namespace: tenantNS, AllowedRoles: []c5c3v1alpha1.KeystoneName{"member"}, Domains: []c5c3v1alpha1.KeystoneName{controlplane.DefaultAdminDomain}},
		}}}); err != nil {
		return err
	}
	kubeconfig, err := os.ReadFile(e.target.Kube.Kubeconfig)
	if err != nil {
		return err
	}
	if err := e.mgmt.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: hubNS, Name: targetName,
		Labels: map[string]string{clusters.DefaultSecretLabel: "true"}},
		Data: map[string][]byte{clusters.DefaultSecretKey: kubeconfig}}); err != nil {
		return err
	}
	for _, c := range []client.Client{e.mgmt, e.tgt} {
		if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: tenantNS}}); err != nil {
			return err
		}
	}
	users, err := keystoneUsers(ctx, e.identity)
	if err != nil {
		return err
	}
	e.baselineUsers = map[string]bool{}
	for id := range users {
		e.baselineUsers[id] = true
	}
	paths, err := openBaoPaths(ctx, e.st)
	if err != nil {
		return err
	}
	e.baselinePaths = map[string]bool{}
	for _, p := range paths {
		e.baselinePaths[p] = true
	}
	return nil
}

// startHub runs `orderhub hub` as the stack's process hubProc
// (testenv.StartHub), with the target registrations read from hubNS.
func (e *env) startHub(ctx context.Context, bin string) error {
	log, err := e.st.StartHub(ctx, e.mgmt, testenv.HubProcess{Name: hubProc, Bin: bin, TargetSecretNamespace: hubNS,
		Args: []string{"--zap-time-encoding=rfc3339"}})
	if err != nil {
		return err
	}
	e.logf("orderhub hub runs, log %s", log)
	return nil
}

// order creates the orders and waits until every one is Ready.
func (e *env) order(ctx context.Context) error {
	if err := poll(ctx, readyTimeout, "ControlPlane AdminCredentialReady", func() error {
		var cp c5c3v1alpha1.ControlPlane
		if err := e.mgmt.Get(ctx, client.ObjectKey{Namespace: planeNS, Name: planeName}, &cp); err != nil {
			return err
		}
		if !meta.IsStatusConditionTrue(cp.Status.Conditions, c5c3v1alpha1.ConditionAdminCredentialReady) {
			return fmt.Errorf("conditions %v", brief(cp.Status.Conditions))
		}
		return nil
	}); err != nil {
		return err
	}
	for _, o := range desiredOrders() {
		if err := e.clusters[o.cluster].Create(ctx, o.obj); err != nil {
			return fmt.Errorf("create %s: %w", o.id(), err)
		}
	}
	e.logf("orders created; waiting until each is Ready")
	start := time.Now()
	if err := poll(ctx, readyTimeout, "every order Ready", func() error { return e.allReady(ctx) }); err != nil {
		return err
	}
	e.logf("every order Ready after %s", time.Since(start).Round(time.Second))
	return nil
}

// allReady returns nil when every order reads Ready=True.
func (e *env) allReady(ctx context.Context) error {
	for _, o := range desiredOrders() {
		obj := o.obj.DeepCopyObject().(client.Object)
		if err := e.clusters[o.cluster].Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
			return fmt.Errorf("%s: %w", o.id(), err)
		}
		conds := conditionsOf(obj)
		if !meta.IsStatusConditionTrue(conds, c5c3v1alpha1.ConditionReady) {
			return fmt.Errorf("%s: %v", o.id(), brief(conds))
		}
	}
	return nil
}

// rotationsSettled reports a rotation still under way: a K-ORC
// ApplicationCredential child of an order whose generation is above the
// order's status.credentialGeneration. A rotation that started just before
// the schedules were turned off is continued, and the order stays Ready
// meanwhile; judged before its switch, the successor K-ORC has minted would
// read as leaked (clean-clone run Q of this harness: a rotation due one second
// before the run's end, "4 minted for 3 generations"). A successor the hub
// never records keeps this failing until convergeTimeout: still a failed run.
func (e *env) rotationsSettled(ctx context.Context) error {
	var children orcv1alpha1.ApplicationCredentialList
	if err := e.mgmt.List(ctx, &children, client.InNamespace(planeNS)); err != nil {
		return err
	}
	for _, o := range desiredOrders() {
		if _, ok := o.obj.(*c5c3v1alpha1.KeystoneApplicationCredential); !ok {
			continue
		}
		var ac c5c3v1alpha1.KeystoneApplicationCredential
		if err := e.clusters[o.cluster].Get(ctx, client.ObjectKeyFromObject(o.obj), &ac); err != nil {
			return fmt.Errorf("%s: %w", o.id(), err)
		}
		prefix := childPrefix(o.cluster, ac.Name, korc.InfixApplicationCredential)
		for _, c := range children.Items {
			gen, ok := applicationcredential.GenerationOfChild(prefix, c.Name)
			if ok && gen > ac.Status.CredentialGeneration && c.DeletionTimestamp.IsZero() {
				return fmt.Errorf("%s: the rotation to generation %d is under way (status.credentialGeneration %d)",
					o.id(), gen, ac.Status.CredentialGeneration)
			}
		}
	}
	return nil
}

// stopSchedules turns the application credentials' rotation schedules off
// (rotation.interval 0s) when the run is over, as the password rotation
// requests stop: the checks after convergence then judge a settled order, not
// a race with the next scheduled mint (a credential K-ORC has minted that
// the hub has not recorded yet). A rotation under way is continued, and the
// live credential keeps its expiry (docs/reference/
// keystoneapplicationcredential.md, "Rotation"). A refused update (an
// outage) is retried every second; giving up is a report error.
func (e *env) stopSchedules(ctx context.Context, rep *Report) {
	for _, o := range desiredOrders() {
		if _, ok := o.obj.(*c5c3v1alpha1.KeystoneApplicationCredential); !ok {
			continue
		}
		if err := poll(ctx, readyTimeout, "turn the schedule of "+o.id()+" off", func() error {
			var ac c5c3v1alpha1.KeystoneApplicationCredential
			if err := e.clusters[o.cluster].Get(ctx, client.ObjectKeyFromObject(o.obj), &ac); err != nil {
				return err
			}
			if ac.Spec.Rotation == nil {
				ac.Spec.Rotation = &c5c3v1alpha1.ApplicationCredentialRotationSpec{}
			}
			ac.Spec.Rotation.Interval = &metav1.Duration{}
			return e.clusters[o.cluster].Update(ctx, &ac)
		}); err != nil {
			rep.Errors = append(rep.Errors, err.Error())
		}
	}
	e.logf("application credential schedules off")
}

// soak runs the consumers, the rotation requests and the faults for the
// configured duration, waits for convergence, then checks and deletes.
func (e *env) soak(ctx context.Context) (*Report, error) {
	rep := &Report{Seed: e.cfg.Seed, Duration: e.cfg.Duration.String(), FaultsPlanned: e.cfg.Faults, Kinds: e.cfg.Kinds}
	e.rec = newRecorder()
	runCtx, stopRun := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for _, c := range consumerSecrets() {
		wg.Add(1)
		go func() { defer wg.Done(); e.consume(runCtx, c) }()
	}
	// The password rotation requests stop when the run is over, so the
	// convergence below is the system settling, not a race with the next
	// request; the application credentials' own schedules go on.
	rotCtx, stopRotations := context.WithCancel(runCtx)
	defer stopRotations()
	wg.Add(3)
	go func() { defer wg.Done(); e.requestRotations(rotCtx) }()
	go func() { defer wg.Done(); e.watchStatus(runCtx) }()
	go func() { defer wg.Done(); e.watchKeystone(runCtx) }()
	if e.cfg.Pods {
		// The faults start once the pods run.
		if err := e.startPods(ctx); err != nil {
			stopRun()
			wg.Wait()
			return rep, fmt.Errorf("consumer pods: %w", err)
		}
		defer e.sink.Close()
	}

	started := time.Now()
	rep.Started = started.UTC()
	rng := rand.New(rand.NewPCG(uint64(e.cfg.Seed), 0x50a4))
	plan := schedule(rng, e.cfg.Duration, e.cfg.Faults, e.cfg.Kinds)
	for _, f := range plan {
		if err := sleepUntil(ctx, started.Add(f.offset)); err != nil {
			stopRun()
			wg.Wait()
			return rep, err
		}
		rep.Faults = append(rep.Faults, e.inject(ctx, f.kind))
		e.lastFaultEnded = time.Now()
	}
	if err := sleepUntil(ctx, started.Add(e.cfg.Duration)); err != nil {
		stopRun()
		wg.Wait()
		return rep, err
	}
	if e.lastFaultEnded.IsZero() {
		e.lastFaultEnded = time.Now()
	}
	// Convergence: every order Ready, no rotation under way, every
	// consumer's latest attempt, made after the last fault, a success, and
	// (Pods) every workload's running pods on the Secret's credential, their
	// latest token request a success.
	stopRotations()
	e.stopSchedules(ctx, rep)
	e.logf("run over; waiting for convergence")
	if err := poll(ctx, convergeTimeout, "convergence after the last fault", func() error {
		if err := e.allReady(ctx); err != nil {
			return err
		}
		if err := e.rotationsSettled(ctx); err != nil {
			return err
		}
		if e.sink != nil {
			if err := e.podsSettled(ctx, true); err != nil {
				return err
			}
		}
		return e.rec.allSucceededSince(e.lastFaultEnded)
	}); err != nil {
		rep.Errors = append(rep.Errors, err.Error())
	} else {
		rep.ConvergedAfterLastFault = time.Since(e.lastFaultEnded).Round(100 * time.Millisecond).String()
		rep.ConvergedSeconds = time.Since(e.lastFaultEnded).Seconds()
	}
	stopRun()
	wg.Wait()
	if e.sink != nil {
		e.stopPods(ctx, rep)
		e.checkPods(rep)
	}
	rep.Ended = time.Now().UTC()
	e.check(ctx, rep)
	e.teardown(ctx, rep)
	return rep, nil
}

// poll calls cond every second until it returns nil, the context ends or
// timeout passes; the error names what and cond's last error.
func poll(ctx context.Context, timeout time.Duration, what string, cond func() error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	var last error
	for {
		if last = cond(); last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: not within %s: %v", what, timeout, last)
		case <-tick.C:
		}
	}
}

// sleepUntil waits until t or the context's end.
func sleepUntil(ctx context.Context, t time.Time) error {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err()
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}

// brief renders conditions as type=status/reason.
func brief(conds []metav1.Condition) []string {
	var out []string
	for _, c := range conds {
		out = append(out, fmt.Sprintf("%s=%s/%s", c.Type, c.Status, c.Reason))
	}
	return out
}

func isGone(err error) bool { return apierrors.IsNotFound(err) }
