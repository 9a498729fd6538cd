package topology

import (
	"testing"
	"time"

	rabbithole "github.com/michaelklishin/rabbit-hole/v3"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
	"github.com/c5c3/orderhub/internal/osh/reconcile"
)

func TestOwnership(t *testing.T) {
	t.Parallel()
	secret := &corev1.LocalObjectReference{Name: "conn"}
	cases := []struct {
		name     string
		ref      rmqv1.RabbitmqClusterReference
		resNS    string
		ownNS    string
		wantOurs bool
	}{
		{"our cluster name in our namespace is ours", rmqv1.RabbitmqClusterReference{Name: "rabbitmq"}, "openstack", "openstack", true},
		{"our cluster with our namespace spelled out is ours", rmqv1.RabbitmqClusterReference{Name: "rabbitmq", Namespace: "openstack"}, "openstack", "openstack", true},
		{"another cluster name is not ours", rmqv1.RabbitmqClusterReference{Name: "other"}, "openstack", "openstack", false},
		{"a connectionSecret is never ours", rmqv1.RabbitmqClusterReference{ConnectionSecret: secret}, "openstack", "openstack", false},
		{"a connectionSecret next to our name is not ours", rmqv1.RabbitmqClusterReference{Name: "rabbitmq", ConnectionSecret: secret}, "openstack", "openstack", false},
		{"a reference to another namespace is not ours", rmqv1.RabbitmqClusterReference{Name: "rabbitmq", Namespace: "elsewhere"}, "openstack", "openstack", false},
		{"a resource in another namespace is not ours", rmqv1.RabbitmqClusterReference{Name: "rabbitmq"}, "elsewhere", "openstack", false},
		{"without an own namespace a same-namespace reference is ours", rmqv1.RabbitmqClusterReference{Name: "rabbitmq", Namespace: "a"}, "a", "", true},
		{"without an own namespace a cross-namespace reference is not ours", rmqv1.RabbitmqClusterReference{Name: "rabbitmq", Namespace: "b"}, "a", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			why := ownership(c.ref, c.resNS, "rabbitmq", c.ownNS)
			if got := why == ""; got != c.wantOurs {
				t.Fatalf("ours = %v (reason %q), want %v", got, why, c.wantOurs)
			}
		})
	}
}

// The topology controller's plan: a new hash at once, a failed one after
// its backoff, a declared one at its resync.
func TestPlanDeclare(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	resync := 10 * time.Minute
	policy := reconcile.Policy{Schedule: resyncSchedule{resync}, HoldFailures: true}
	ok := func(key string, at time.Time) reconcile.Record {
		return reconcile.Succeeded(reconcile.Record{}, key, "", at)
	}
	failed := func(key string, next time.Time) reconcile.Record {
		return reconcile.Record{Key: key, Failures: 2, Next: next}
	}
	cases := []struct {
		name        string
		last        reconcile.Record
		key         string
		wantDeclare bool
		wantWait    time.Duration
	}{
		{"first sight is declared", reconcile.Record{}, "h1", true, 0},
		{"a changed hash is declared at once", ok("h1", now), "h2", true, 0},
		{"an unchanged declared hash waits for the resync", ok("h1", now.Add(-time.Minute)), "h1", false, 9 * time.Minute},
		{"an unchanged hash past the resync is declared again", ok("h1", now.Add(-resync)), "h1", true, 0},
		{"a failed hash waits for its backoff", failed("h1", now.Add(5*time.Second)), "h1", false, 5 * time.Second},
		{"a failed hash is retried when its backoff ends", failed("h1", now.Add(-time.Second)), "h1", true, 0},
		{"a failed hash does not block a new one", failed("h1", now.Add(time.Hour)), "h2", true, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := reconcile.Decide(c.last, c.key, now, false, policy)
			if p.Act != c.wantDeclare || p.Wait != c.wantWait {
				t.Fatalf("plan = %+v, want declare=%v wait=%v", p, c.wantDeclare, c.wantWait)
			}
		})
	}
}

func TestBackoff(t *testing.T) {
	t.Parallel()
	base, max := time.Second, 30*time.Second
	for n, want := range map[int]time.Duration{1: time.Second, 2: 2 * time.Second, 3: 4 * time.Second, 5: 16 * time.Second, 6: 30 * time.Second, 50: 30 * time.Second} {
		if got := backoff(n, base, max); got != want {
			t.Errorf("backoff(%d) = %v, want %v", n, got, want)
		}
	}
}

func TestDesiredHash(t *testing.T) {
	t.Parallel()
	a, _ := reconcile.Hash(userDesired{Username: "u", Settings: rabbithole.UserSettings{Name: "u", Password: "one"}})
	b, _ := reconcile.Hash(userDesired{Username: "u", Settings: rabbithole.UserSettings{Name: "u", Password: "two"}})
	c, _ := reconcile.Hash(userDesired{Username: "u", Settings: rabbithole.UserSettings{Name: "u", Password: "one"}, previous: "x"})
	if a == b {
		t.Fatal("a password change inside the Secret must change the hash")
	}
	if a != c {
		t.Fatal("the previous username must not change the hash")
	}
}

func TestApplyStatus(t *testing.T) {
	t.Parallel()
	t0 := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	t1 := metav1.NewTime(t0.Add(time.Hour))
	reasons := reconcile.Reasons{OK: rmqv1.ReasonSuccessfulCreateOrUpdate, Failed: rmqv1.ReasonFailedCreateOrUpdate}
	ready := reasons.Condition(reconcile.Record{OK: true}, 3)
	cases := []struct {
		name        string
		start       rmqv1.TopologyStatus
		cond        metav1.Condition
		wantChanged bool
		wantLTT     metav1.Time
		wantGen     int64
	}{
		{"no condition yet gets one", rmqv1.TopologyStatus{}, ready, true, t1, 3},
		{"an identical condition is not rewritten", rmqv1.TopologyStatus{ObservedGeneration: 3, Conditions: []metav1.Condition{withTime(ready, t0)}},
			ready, false, t0, 3},
		{"a failure keeps the last good observedGeneration", rmqv1.TopologyStatus{ObservedGeneration: 3, Conditions: []metav1.Condition{withTime(ready, t0)}},
			reasons.Condition(reconcile.Record{Message: "broker answered HTTP 400: inequivalent arg"}, 4), true, t1, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			st := *c.start.DeepCopy()
			reasons.Stamp(reconcile.Status{Conditions: &st.Conditions, ObservedGeneration: &st.ObservedGeneration}, c.cond, t1)
			changed := !equality.Semantic.DeepEqual(st, c.start)
			got := findReady(&st)
			if changed != c.wantChanged || got == nil || !got.LastTransitionTime.Equal(&c.wantLTT) || st.ObservedGeneration != c.wantGen {
				t.Fatalf("changed=%v ready=%+v gen=%d; want changed=%v ltt=%v gen=%d", changed, got, st.ObservedGeneration, c.wantChanged, c.wantLTT, c.wantGen)
			}
			if got.Reason != rmqv1.ReasonSuccessfulCreateOrUpdate && got.Reason != rmqv1.ReasonFailedCreateOrUpdate {
				t.Fatalf("reason %q is outside upstream's vocabulary", got.Reason)
			}
		})
	}
}

func withTime(c metav1.Condition, t metav1.Time) metav1.Condition { c.LastTransitionTime = t; return c }

func TestMatchingBindings(t *testing.T) {
	t.Parallel()
	listed := []rabbithole.BindingInfo{
		{RoutingKey: "k1", Arguments: map[string]any{}, PropertiesKey: "k1"},
		{RoutingKey: "k2", Arguments: map[string]any{"x-match": "all", "n": float64(1)}, PropertiesKey: "k2~abc"},
		{RoutingKey: "k1", Arguments: map[string]any{"x-match": "any"}, PropertiesKey: "k1~def"},
	}
	cases := []struct {
		name string
		rk   string
		args string
		want []string
	}{
		{"routing key without arguments matches only the argument-less binding", "k1", ``, []string{"k1"}},
		{"routing key with arguments matches only that binding", "k1", `{"x-match":"any"}`, []string{"k1~def"}},
		{"numbers compare by value", "k2", `{"n":1,"x-match":"all"}`, []string{"k2~abc"}},
		{"different arguments match nothing", "k2", `{"x-match":"any"}`, nil},
		{"unknown routing key matches nothing", "k3", ``, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var raw *runtime.RawExtension
			if c.args != "" {
				raw = &runtime.RawExtension{Raw: []byte(c.args)}
			}
			args, err := arguments(raw)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, b := range matchingBindings(listed, c.rk, args) {
				got = append(got, b.PropertiesKey)
			}
			if len(got) != len(c.want) || (len(got) > 0 && got[0] != c.want[0]) {
				t.Fatalf("matched %v, want %v", got, c.want)
			}
		})
	}
}

func TestQueueSettings(t *testing.T) {
	t.Parallel()
	f := false
	cases := []struct {
		name        string
		spec        rmqv1.QueueSpec
		args        map[string]any
		wantType    string
		wantDurable bool
	}{
		{"type travels as x-queue-type and durable defaults to true", rmqv1.QueueSpec{Type: "quorum"}, map[string]any{}, "quorum", true},
		{"spec.type wins over an x-queue-type argument, as upstream", rmqv1.QueueSpec{Type: "classic"}, map[string]any{"x-queue-type": "quorum"}, "classic", true},
		{"an x-queue-type argument alone sets the type", rmqv1.QueueSpec{}, map[string]any{"x-queue-type": "quorum"}, "quorum", true},
		{"durable false is kept", rmqv1.QueueSpec{Durable: &f}, map[string]any{}, "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			qs := queueSettings(c.spec, c.args)
			if qs.Type != c.wantType || qs.Durable != c.wantDurable {
				t.Fatalf("got %+v", qs)
			}
		})
	}
}

func TestQuorumDeleteRefusal(t *testing.T) {
	t.Parallel()
	both := rabbithole.QueueDeleteOptions{IfEmpty: true, IfUnused: true}
	cases := []struct {
		name                string
		messages, consumers int
		opts                rabbithole.QueueDeleteOptions
		refused             bool
	}{
		{"empty and unused goes", 0, 0, both, false},
		{"messages with ifEmpty stay", 3, 0, both, true},
		{"consumers with ifUnused stay", 0, 1, both, true},
		{"messages without ifEmpty go", 3, 0, rabbithole.QueueDeleteOptions{IfUnused: true}, false},
		{"consumers without ifUnused go", 0, 2, rabbithole.QueueDeleteOptions{IfEmpty: true}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if err := quorumDeleteRefusal("q", c.messages, c.consumers, c.opts); (err != nil) != c.refused {
				t.Fatalf("refusal %v, want refused %v", err, c.refused)
			}
		})
	}
}

func TestLimitChanges(t *testing.T) {
	t.Parallel()
	put, del := limitChanges(map[string]int{"max-connections": 5, "max-queues": 10}, map[string]int{"max-connections": 6})
	if len(put) != 1 || put["max-connections"] != 6 || len(del) != 1 || del[0] != "max-queues" {
		t.Fatalf("put=%v del=%v", put, del)
	}
	put, del = limitChanges(map[string]int{"max-connections": 5}, map[string]int{"max-connections": 5})
	if len(put) != 0 || len(del) != 0 {
		t.Fatalf("unchanged limits must send nothing: put=%v del=%v", put, del)
	}
}

func TestUserFromSecret(t *testing.T) {
	t.Parallel()
	u := &rmqv1.User{ObjectMeta: metav1.ObjectMeta{Name: "keystone"}, Spec: rmqv1.UserSpec{Tags: []rmqv1.UserTag{"management"}}}
	cases := []struct {
		name      string
		data      map[string][]byte
		wantUser  string
		wantPass  string
		wantHash  string
		wantNoPwd bool
		wantErr   bool
	}{
		{"username and password are imported verbatim", map[string][]byte{"username": []byte("ks"), "password": []byte("p%@:/ x")}, "ks", "p%@:/ x", "", false, false},
		{"a missing username is an error, as upstream", map[string][]byte{"password": []byte("p")}, "", "", "", false, true},
		{"an empty username is an error, as upstream", map[string][]byte{"username": {}, "password": []byte("p")}, "", "", "", false, true},
		{"passwordHash wins over password", map[string][]byte{"username": []byte("ks"), "password": []byte("p"), "passwordHash": []byte("h")}, "ks", "", "h", false, false},
		{"an empty passwordHash makes a passwordless user", map[string][]byte{"username": []byte("ks"), "passwordHash": {}}, "ks", "", "", true, false},
		{"no password at all is an error", map[string][]byte{"username": []byte("ks")}, "", "", "", false, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			d, err := userFromSecret(u, c.data)
			if (err != nil) != c.wantErr {
				t.Fatalf("err = %v", err)
			}
			if err != nil {
				return
			}
			if d.Username != c.wantUser || d.Settings.Password != c.wantPass || d.Settings.PasswordHash != c.wantHash || d.Passwordless != c.wantNoPwd {
				t.Fatalf("got %+v", d)
			}
		})
	}
}

func TestPasswordMatches(t *testing.T) {
	t.Parallel()
	pw := "p%41 @:/ w%rd"
	cases := []struct {
		name string
		hash string
		algo rabbithole.HashingAlgorithm
		pw   string
		want bool
	}{
		{"sha256 hash of the password matches", rabbithole.Base64EncodedSaltedPasswordHashSHA256(pw), rabbithole.HashingAlgorithmSHA256, pw, true},
		{"an unnamed algorithm is the sha256 default", rabbithole.Base64EncodedSaltedPasswordHashSHA256(pw), "", pw, true},
		{"sha512 hash of the password matches", rabbithole.Base64EncodedSaltedPasswordHashSHA512(pw), rabbithole.HashingAlgorithmSHA512, pw, true},
		{"another password does not match", rabbithole.Base64EncodedSaltedPasswordHashSHA256(pw), rabbithole.HashingAlgorithmSHA256, "other", false},
		{"md5 is never trusted", rabbithole.Base64EncodedSaltedPasswordHashSHA256(pw), rabbithole.HashingAlgorithmMD5, pw, false},
		{"garbage does not match", "!!", "", pw, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := passwordMatches(c.hash, c.algo, c.pw); got != c.want {
				t.Fatalf("passwordMatches = %v, want %v", got, c.want)
			}
		})
	}
}

func TestSameSet(t *testing.T) {
	t.Parallel()
	if !sameSet([]string{"b", "a"}, []string{"a", "b"}) || !sameSet(nil, []string{""}) || sameSet([]string{"a"}, []string{"a", "b"}) {
		t.Fatal("sameSet")
	}
}

func TestRefuseOwnAdmin(t *testing.T) {
	for _, tc := range []struct {
		user, admin string
		refused     bool
	}{
		{"keystone", "orderhub-admin", false},
		{"orderhub-admin", "orderhub-admin", true},
		{"Orderhub-Admin", "orderhub-admin", false}, // RabbitMQ user names are case-sensitive
		{"anything", "", false},
	} {
		if err := refuseOwnAdmin(tc.user, tc.admin); (err != nil) != tc.refused {
			t.Errorf("refuseOwnAdmin(%q, %q) = %v, want refused=%v", tc.user, tc.admin, err, tc.refused)
		}
	}
}

// Upstream's omitted destinationType is an exchange binding.
func TestDestinationType(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"": "exchange", "exchange": "exchange", "queue": "queue"} {
		if got := destinationType(rmqv1.BindingSpec{DestinationType: in}); got != want {
			t.Errorf("destinationType(%q) = %q, want %q", in, got, want)
		}
	}
}

// The plain password is sent as a salted SHA-512 password_hash, as upstream
// sends it; a hash the broker accepts for the password.
func TestSaltedSettings(t *testing.T) {
	t.Parallel()
	in := rabbithole.UserSettings{Name: "ks", Tags: rabbithole.UserTags{"management"}, Password: "p%41 @:/"}
	a, b := saltedSettings(in), saltedSettings(in)
	if a.Password != "" || a.HashingAlgorithm != rabbithole.HashingAlgorithmSHA512 || a.PasswordHash == b.PasswordHash {
		t.Fatalf("got %+v and %+v: want no plain password, SHA-512, a fresh salt each time", a, b)
	}
	if !passwordMatches(a.PasswordHash, a.HashingAlgorithm, in.Password) || passwordMatches(a.PasswordHash, a.HashingAlgorithm, "other") {
		t.Fatal("the hash does not verify the password")
	}
	imported := rabbithole.UserSettings{Name: "ks", PasswordHash: "h", HashingAlgorithm: rabbithole.HashingAlgorithmSHA512}
	if got := saltedSettings(imported); got.PasswordHash != "h" || got.Password != "" {
		t.Fatalf("an imported hash was changed: %+v", got)
	}
}

// docs/topology.md, "Reconciliation": a refusal for a missing dependency is
// retried promptly at first, then backs off exponentially as any failure
// does; other refusals (a 401, an inequivalent argument) back off from the
// first failure.
func TestRetryDelay(t *testing.T) {
	t.Parallel()
	const base, max, dep = time.Second, 2 * time.Minute, 5 * time.Second
	s := time.Second
	for _, c := range []struct {
		name    string
		missing bool
		want    []time.Duration // after failures 1, 2, ...
	}{
		{"a refusal", false, []time.Duration{1 * s, 2 * s, 4 * s, 8 * s, 16 * s, 32 * s, 64 * s, 120 * s, 120 * s}},
		{"a missing dependency", true, []time.Duration{1 * s, 2 * s, 4 * s, 5 * s, 5 * s, 10 * s, 20 * s, 40 * s, 80 * s, 120 * s, 120 * s}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for i, want := range c.want {
				if got := retryDelay(i+1, c.missing, base, max, dep); got != want {
					t.Errorf("after failure %d: %v, want %v", i+1, got, want)
				}
			}
		})
	}
	// A dependency retry longer than the backoff never lengthens it.
	if got := retryDelay(3, true, time.Hour, time.Hour, 500*time.Millisecond); got != 500*time.Millisecond {
		t.Errorf("backoff 1h, dependency retry 500ms, failure 3: %v", got)
	}
	if got := retryDelay(1, true, time.Second, time.Minute, time.Hour); got != time.Second {
		t.Errorf("backoff 1s, dependency retry 1h, failure 1: %v", got)
	}
}
