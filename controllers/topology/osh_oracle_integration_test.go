//go:build integration

package topology

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	rabbithole "github.com/michaelklishin/rabbit-hole/v3"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
	"github.com/c5c3/orderhub/internal/oshref"
	"github.com/c5c3/orderhub/internal/testenv"
)

// docs/topology.md, "The OpenStack-Helm Python controller as an oracle": the
// corpus under testdata/osh-oracle is applied once with OpenStack-Helm's
// Python controller (only when ORDERHUB_OSH_CHECKOUT names a checkout) and
// once with orderhub, each in its own namespace and vhosts (names prefixed
// per run), and the normalised broker states are compared, after the corpus
// is applied and after it is deleted. Without a checkout the oracle is the
// golden file oracleGolden; ORDERHUB_OSH_UPDATE=1 rewrites it from the live
// Python controller. Differences other than oracleKnown fail, and so does an
// oracleKnown entry that no longer differs. Before applying, each object of
// refused.yaml is created in the run's namespace and admission's answer is
// part of the state (phase "refused").

const (
	oracleGolden    = "testdata/osh-oracle/python-state.json"
	oracleEnvUpdate = "ORDERHUB_OSH_UPDATE"
	oraclePrefix    = "P."
	oracleSettle    = 3 * time.Minute
	phaseRefused    = "refused"
	guestUser       = "guest"
)

func TestIntegration_Topology_OpenStackHelmPythonOracle(t *testing.T) {
	var oracle oshref.State
	if checkout := os.Getenv(oshref.EnvCheckout); checkout != "" {
		oracle = runPythonOracle(t, checkout)
		if os.Getenv(oracleEnvUpdate) == "1" {
			if err := oshref.WriteState(oracleGolden, oracle); err != nil {
				t.Fatal(err)
			}
		} else if golden, err := oshref.ReadState(oracleGolden); err != nil {
			t.Fatal(err)
		} else if un, _ := oshref.Compare(golden, oracle, nil); len(un) != 0 {
			t.Errorf("the Python controller of %s differs from %s (%s=1 rewrites it):\n%s", checkout, oracleGolden, oracleEnvUpdate, diffLines(un))
		}
	} else {
		var err error
		if oracle, err = oshref.ReadState(oracleGolden); err != nil {
			t.Fatal(err)
		}
		t.Logf("oracle: %s (set %s to run the Python controller)", oracle.Source, oshref.EnvCheckout)
	}

	resetGuest(t)
	ns := startOwnControllers(t, "oracle-oh", Options{ResyncPeriod: time.Hour, BackoffBase: 200 * time.Millisecond,
		BackoffMax: time.Second, DependencyRetry: 200 * time.Millisecond, DeleteGuestUser: true, GuestInterval: 500 * time.Millisecond}, nil)
	run := newOracleRun(t, ns)
	if un, unused := oshref.Compare(only(oracle, phaseRefused), run.refused(t), knownIn(phaseRefused)); len(un) != 0 || len(unused) != 0 {
		t.Fatalf("admission in orderhub's namespace differs from the oracle's:\n%s%v", diffLines(un), unused)
	}
	settled := func(phase string) {
		testenv.Eventually(t, oracleSettle, "orderhub's broker state matches the oracle's ("+phase+")", func() error {
			got, err := run.snapshot(t, phase)
			if err != nil {
				return err
			}
			un, unused := oshref.Compare(only(oracle, phase), got, knownIn(phase))
			if len(un) != 0 {
				return fmt.Errorf("%d unexplained differences:\n%s", len(un), diffLines(un))
			}
			for _, k := range unused {
				return fmt.Errorf("known difference %s (%s) is no longer seen", k, k.Doc)
			}
			return nil
		})
	}
	run.apply(t, func() error { return run.readyPresent(t) })
	settled("applied")
	run.deleteAll(t)
	settled("deleted")
}

// runPythonOracle runs the corpus with the Python controller of checkout and
// returns its normalised state.
func runPythonOracle(t *testing.T, checkout string) oshref.State {
	t.Helper()
	if err := oshref.CheckPython(oshref.DefaultPython); err != nil {
		t.Fatal(err)
	}
	script, err := oshref.Render(checkout, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ns := uniq("oracle-py")
	if err := kube.Create(bg, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	resetGuest(t)
	r := stack.RabbitMQ
	var log bytes.Buffer
	p, err := oshref.Start(context.Background(), script, oshref.Options{Kubeconfig: stack.Kube.Kubeconfig, Namespace: ns,
		ClusterName: clusterName, Host: r.Host, Port: r.ManagementPort, User: r.User, Password: r.Password,
		Interval: time.Second, Backoff: time.Second, DeleteGuest: true, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.Stop()
		if t.Failed() {
			t.Logf("Python controller log:\n%s", p.Log())
		}
	})
	run := newOracleRun(t, ns)
	refused := run.refused(t)
	// The Python controller has settled once every served object has its
	// Ready condition and three more sweeps have passed (each retries every
	// failed object: error backoff = sweep interval).
	afterSweeps := func() error {
		if err := run.readyPresent(t); err != nil {
			return err
		}
		return sweepsPass(t, p, 3)
	}
	run.apply(t, afterSweeps)
	testenv.Eventually(t, oracleSettle, "the Python controller settles", afterSweeps)
	state, err := run.snapshot(t, "applied")
	if err != nil {
		t.Fatal(err)
	}
	run.deleteAll(t)
	if err := sweepsPass(t, p, 2); err != nil {
		t.Fatal(err)
	}
	deleted, err := run.snapshot(t, "deleted")
	if err != nil {
		t.Fatal(err)
	}
	maps.Copy(state.Entries, deleted.Entries)
	maps.Copy(state.Entries, refused.Entries)
	state.Source = "OpenStack-Helm rabbitmq/templates/bin/_rabbitmq_topology_controller.py.tpl at openstack/openstack-helm commit " + oshref.Commit(checkout)
	return state
}

// sweepsPass waits until n sweeps of p have finished after now.
func sweepsPass(t *testing.T, p *oshref.Process, n int) error {
	t.Helper()
	start := p.Sweeps()
	var err error
	testenv.Eventually(t, oracleSettle, fmt.Sprintf("%d sweeps of the Python controller", n), func() error {
		if p.Exited() {
			err = errors.New("the Python controller exited")
			return nil
		}
		if s := p.Sweeps(); s < start+n {
			return fmt.Errorf("%d of %d sweeps", s-start, n)
		}
		return nil
	})
	return err
}

// resetGuest declares the guest user, which the controller under test must
// delete (docs/topology.md: guest deletion).
func resetGuest(t *testing.T) {
	t.Helper()
	if _, err := admin.PutUser(guestUser, rabbithole.UserSettings{Password: "guest", Tags: rabbithole.UserTags{"administrator"}}); err != nil {
		t.Fatal(err)
	}
}

// oracleRun is one application of the corpus in namespace ns, whose names
// carry the prefix ns + "-".
type oracleRun struct {
	ns, prefix string
	objs       []*unstructured.Unstructured
	// users maps broker usernames to corpus keys, with the password the
	// run's Secret holds; filled at the first snapshot.
	users map[string]oracleUser
}

type oracleUser struct{ key, username, password string }

func newOracleRun(t *testing.T, ns string) *oracleRun {
	return &oracleRun{ns: ns, prefix: ns + "-"}
}

func (o *oracleRun) load(t *testing.T, file string) []*unstructured.Unstructured {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata/osh-oracle", file))
	if err != nil {
		t.Fatal(err)
	}
	b = bytes.ReplaceAll(b, []byte(oraclePrefix), []byte(o.prefix))
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(b), 4096)
	var out []*unstructured.Unstructured
	for {
		u := &unstructured.Unstructured{}
		if err := dec.Decode(&u.Object); err != nil {
			if errors.Is(err, io.EOF) {
				return out
			}
			t.Fatalf("%s: %v", file, err)
		}
		if len(u.Object) == 0 {
			continue
		}
		u.SetNamespace(o.ns)
		out = append(out, u)
	}
}

// apply creates step 1, waits on between, declares the conflicting transient
// queue, then creates step 2.
func (o *oracleRun) apply(t *testing.T, between func() error) {
	t.Helper()
	for _, step := range []string{"step1.yaml", "step2.yaml"} {
		for _, u := range o.load(t, step) {
			if err := kube.Create(bg, u); err != nil {
				t.Fatalf("create %s %s: %v", u.GetKind(), u.GetName(), err)
			}
			o.objs = append(o.objs, u)
		}
		if step == "step1.yaml" {
			testenv.Eventually(t, oracleSettle, "step 1 reports Ready", between)
			if _, err := admin.DeclareQueue(o.prefix+"vh", "clash", rabbithole.QueueSettings{Durable: false}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// refused creates each object of refused.yaml and records admission's answer:
// the status reason and each cause's field and message ("admitted" when it
// is not refused; the object is then deleted again).
func (o *oracleRun) refused(t *testing.T) oshref.State {
	t.Helper()
	var s oshref.State
	for _, u := range o.load(t, "refused.yaml") {
		key := phaseRefused + "/" + u.GetKind() + "/" + o.strip(u.GetName())
		err := kube.Create(bg, u)
		if err == nil {
			s.Set(key, "admitted")
			if err := kube.Delete(bg, u); err != nil {
				t.Fatal(err)
			}
			continue
		}
		var status apierrors.APIStatus
		if !errors.As(err, &status) {
			t.Fatalf("create %s %s: %v", u.GetKind(), u.GetName(), err)
		}
		answer := map[string]any{"reason": string(status.Status().Reason)}
		if d := status.Status().Details; d != nil {
			var causes []string
			for _, c := range d.Causes {
				causes = append(causes, c.Field+": "+c.Message)
			}
			answer["causes"] = causes
		}
		s.Set(key, answer)
	}
	return s
}

// served is whether u is a topology object its controller answers for.
func served(u *unstructured.Unstructured) bool {
	if u.GetKind() == "Secret" {
		return false
	}
	name, _, _ := unstructured.NestedString(u.Object, "spec", "rabbitmqClusterReference", "name")
	return name == clusterName
}

// readyPresent fails until every served object has a Ready condition for
// its current generation.
func (o *oracleRun) readyPresent(t *testing.T) error {
	for _, u := range o.objs {
		if !served(u) {
			continue
		}
		status, _, _, err := o.ready(u)
		if err != nil {
			return err
		}
		if status == "none" {
			return fmt.Errorf("%s %s has no Ready condition for its generation", u.GetKind(), u.GetName())
		}
	}
	return nil
}

// ready returns the Ready status of u's current generation ("none" without
// one: a condition stamped with an older generation, or without one and
// status.observedGeneration older), whether status.observedGeneration is the
// current generation, and u's finalizers. Upstream stamps
// status.observedGeneration on success only; the Python controller on every
// write and not on the condition.
func (o *oracleRun) ready(u *unstructured.Unstructured) (string, bool, []string, error) {
	cur := &unstructured.Unstructured{}
	cur.SetGroupVersionKind(u.GroupVersionKind())
	if err := kube.Get(bg, client.ObjectKeyFromObject(u), cur); err != nil {
		return "", false, nil, err
	}
	observed, _, _ := unstructured.NestedInt64(cur.Object, "status", "observedGeneration")
	current := observed == cur.GetGeneration()
	conds, _, _ := unstructured.NestedSlice(cur.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] != rmqv1.ConditionReady {
			continue
		}
		at, stamped := m["observedGeneration"].(int64)
		if (stamped && at == cur.GetGeneration()) || (!stamped && current) {
			s, _ := m["status"].(string)
			return s, current, cur.GetFinalizers(), nil
		}
	}
	return "none", current, cur.GetFinalizers(), nil
}

// deleteAll deletes the corpus' topology objects in two waves, each waited
// on until gone: everything but Users and Vhosts, then those. The Python
// controller cannot finalize a Permission whose userReference names a User
// already gone (docs/topology.md, oracle findings), so a single wave would
// wedge it; orderhub takes either.
func (o *oracleRun) deleteAll(t *testing.T) {
	t.Helper()
	last := func(u *unstructured.Unstructured) bool { return u.GetKind() == "User" || u.GetKind() == "Vhost" }
	for _, wave := range []func(*unstructured.Unstructured) bool{
		func(u *unstructured.Unstructured) bool { return !last(u) }, last,
	} {
		var objs []*unstructured.Unstructured
		for _, u := range o.objs {
			if u.GetKind() != "Secret" && wave(u) {
				objs = append(objs, u)
			}
		}
		for _, u := range objs {
			if err := kube.Delete(bg, u); client.IgnoreNotFound(err) != nil {
				t.Fatal(err)
			}
		}
		testenv.Eventually(t, oracleSettle, "the corpus is deleted", func() error {
			for _, u := range objs {
				cur := &unstructured.Unstructured{}
				cur.SetGroupVersionKind(u.GroupVersionKind())
				if err := kube.Get(bg, client.ObjectKeyFromObject(u), cur); !apierrors.IsNotFound(err) {
					return fmt.Errorf("%s %s: still there (finalizers %v), %v", u.GetKind(), u.GetName(), cur.GetFinalizers(), err)
				}
			}
			return nil
		})
	}
}

func (o *oracleRun) strip(name string) string { return strings.TrimPrefix(name, o.prefix) }

// mapUsers reads each User's credentials Secret (imported, or generated as
// <name>-user-credentials).
func (o *oracleRun) mapUsers(t *testing.T) error {
	users := map[string]oracleUser{}
	for _, u := range o.objs {
		if u.GetKind() != "User" {
			continue
		}
		secret, _, _ := unstructured.NestedString(u.Object, "spec", "importCredentialsSecret", "name")
		if secret == "" {
			secret = u.GetName() + GeneratedSecretSuffix
		}
		var s corev1.Secret
		if err := kube.Get(bg, client.ObjectKey{Namespace: o.ns, Name: secret}, &s); err != nil {
			return fmt.Errorf("credentials of User %s: %w", u.GetName(), err)
		}
		name := string(s.Data[SecretKeyUsername])
		shape := o.strip(name)
		switch {
		case name == u.GetName():
			shape = "<the User's name>"
		case !strings.HasPrefix(name, o.prefix):
			shape = "<random>"
		}
		users[name] = oracleUser{key: o.strip(u.GetName()), username: shape, password: string(s.Data[SecretKeyPassword])}
	}
	o.users = users
	return nil
}

func (o *oracleRun) userKey(name string) string {
	if u, ok := o.users[name]; ok {
		return u.key
	}
	if name == stack.RabbitMQ.User {
		return "<admin>"
	}
	return o.strip(name)
}

// snapshot reads the broker: the run's vhosts and what they hold, its users,
// the guest user, and (after applying) each object's Ready status.
func (o *oracleRun) snapshot(t *testing.T, phase string) (oshref.State, error) {
	t.Helper()
	if phase == "applied" {
		if err := o.mapUsers(t); err != nil {
			return oshref.State{}, err
		}
	}
	var s oshref.State
	set := func(key string, v any) { s.Set(phase+"/"+key, v) }
	ours := func(vhost string) bool { return strings.HasPrefix(vhost, o.prefix) }
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}

	vhosts, err := admin.ListVhosts()
	must(err)
	for _, v := range vhosts {
		if ours(v.Name) {
			tags := slices.Clone([]string(v.Tags))
			sort.Strings(tags)
			set("vhost/"+o.strip(v.Name), map[string]any{"tags": tags, "tracing": v.Tracing, "default_queue_type": v.DefaultQueueType})
		}
	}
	users, err := admin.ListUsers()
	must(err)
	for _, u := range users {
		if u.Name == guestUser {
			set("user/guest", "present")
			continue
		}
		known, isOurs := o.users[u.Name]
		if !isOurs && !strings.HasPrefix(u.Name, o.prefix) {
			continue
		}
		tags := slices.Clone([]string(u.Tags))
		sort.Strings(tags)
		key := "user/" + o.userKey(u.Name) + "/"
		set(key+"username", known.username)
		set(key+"tags", tags)
		set(key+"hashing_algorithm", u.HashingAlgorithm)
		set(key+"password_authenticates", isOurs && passwordMatches(u.PasswordHash, u.HashingAlgorithm, known.password))
	}
	perms, err := admin.ListPermissions()
	must(err)
	for _, p := range perms {
		if ours(p.Vhost) {
			set("permission/"+o.strip(p.Vhost)+"/"+o.userKey(p.User), map[string]string{"configure": p.Configure, "write": p.Write, "read": p.Read})
		}
	}
	policies, err := admin.ListPolicies()
	must(err)
	for _, p := range policies {
		if ours(p.Vhost) {
			set("policy/"+o.strip(p.Vhost)+"/"+p.Name, map[string]any{"pattern": p.Pattern, "apply-to": p.ApplyTo, "priority": p.Priority, "definition": p.Definition})
		}
	}
	queues, err := admin.ListQueues()
	must(err)
	for _, q := range queues {
		if ours(q.Vhost) {
			set("queue/"+o.strip(q.Vhost)+"/"+q.Name, map[string]any{"type": q.Type, "durable": q.Durable, "auto_delete": q.AutoDelete, "arguments": q.Arguments})
		}
	}
	exchanges, err := admin.ListExchanges()
	must(err)
	for _, x := range exchanges {
		if ours(x.Vhost) && x.Name != "" && !strings.HasPrefix(x.Name, "amq.") {
			set("exchange/"+o.strip(x.Vhost)+"/"+x.Name, map[string]any{"type": x.Type, "durable": x.Durable, "auto_delete": x.AutoDelete, "internal": x.Internal, "arguments": x.Arguments})
		}
	}
	bindings, err := admin.ListBindings()
	must(err)
	for _, b := range bindings {
		if ours(b.Vhost) && b.Source != "" {
			set(fmt.Sprintf("binding/%s/%s/%s/%s/%q", o.strip(b.Vhost), b.Source, b.DestinationType, b.Destination, b.RoutingKey), b.Arguments)
		}
	}
	if phase == "applied" {
		for _, u := range o.objs {
			if u.GetKind() == "Secret" {
				continue
			}
			status, observed, finalizers, err := o.ready(u)
			must(err)
			set("ready/"+u.GetKind()+"/"+o.strip(u.GetName()), status)
			set("observed_generation_current/"+u.GetKind()+"/"+o.strip(u.GetName()), observed)
			set("finalizers/"+u.GetKind()+"/"+o.strip(u.GetName()), len(finalizers) > 0)
		}
	}
	return s, nil
}

// only is the part of s of phase.
func only(s oshref.State, phase string) oshref.State {
	out := oshref.State{Source: s.Source, Entries: map[string]string{}}
	for k, v := range s.Entries {
		if strings.HasPrefix(k, phase+"/") {
			out.Entries[k] = v
		}
	}
	return out
}

// knownIn is the part of oracleKnown of phase.
func knownIn(phase string) []oshref.Known {
	var out []oshref.Known
	for _, k := range oracleKnown {
		if strings.HasPrefix(k.Key, phase+"/") {
			out = append(out, k)
		}
	}
	return out
}

func diffLines(ds []oshref.Diff) string {
	var b strings.Builder
	for _, d := range ds {
		b.WriteString("  " + d.String() + "\n")
	}
	return b.String()
}
