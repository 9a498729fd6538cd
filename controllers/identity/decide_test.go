package identity

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/endpoints"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/event"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
	"github.com/c5c3/orderhub/internal/keystone"
	"github.com/c5c3/orderhub/internal/osh/reconcile"
)

func TestOwned(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		ref  *kv1.KeystoneRef
		want bool
	}{
		{"unset", nil, true},
		{"empty name", &kv1.KeystoneRef{}, true},
		{"this deployment", &kv1.KeystoneRef{Name: "keystone"}, true},
		{"another deployment", &kv1.KeystoneRef{Name: "keystone-b"}, false},
		{"case matters for Kubernetes names", &kv1.KeystoneRef{Name: "Keystone"}, false},
	}
	for _, tc := range tests {
		if got := owned(tc.ref, "keystone"); got != tc.want {
			t.Errorf("%s: owned = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestWantsFinalizer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		owned  bool
		policy kv1.DeletionPolicy
		want   bool
	}{
		{true, kv1.DeletionPolicyDelete, true},
		{true, kv1.DeletionPolicyRetain, false},
		{true, "", false},
		{false, kv1.DeletionPolicyDelete, false},
	}
	for _, tc := range tests {
		if got := wantsFinalizer(tc.owned, tc.policy); got != tc.want {
			t.Errorf("wantsFinalizer(%v, %q) = %v, want %v", tc.owned, tc.policy, got, tc.want)
		}
	}
}

func TestDesiredHash(t *testing.T) {
	t.Parallel()
	spec := kv1.UserSpec{Name: "cinder", Domain: "service"}
	h1, _ := reconcile.Hash(desired{spec, map[string]string{passwordInput: "a"}})
	h2, _ := reconcile.Hash(desired{spec, map[string]string{passwordInput: "a"}})
	h3, _ := reconcile.Hash(desired{spec, map[string]string{passwordInput: "b"}})
	spec.Description = "changed"
	h4, _ := reconcile.Hash(desired{spec, map[string]string{passwordInput: "a"}})
	if h1 != h2 {
		t.Error("the hash must be stable")
	}
	if h1 == h3 {
		t.Error("a changed Secret value must change the hash")
	}
	if h1 == h4 {
		t.Error("a changed spec must change the hash")
	}
}

func readyStatus(gen int64, status metav1.ConditionStatus) *kv1.CommonStatus {
	return &kv1.CommonStatus{ObservedGeneration: gen, Conditions: []metav1.Condition{{
		Type: kv1.ConditionReady, Status: status, ObservedGeneration: gen, Reason: kv1.ReasonReconciled}}}
}

// The identity controller's plan: skip an unchanged desired state while
// Ready and until its resync; act on anything else.
func TestDecideSkip(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	resync := 30 * time.Minute
	policy := reconcile.Policy{Schedule: resyncSchedule{resync}, RequireReady: true}
	last := reconcile.Succeeded(reconcile.Record{}, "h", "", now.Add(-10*time.Minute))
	failed := reconcile.Failed(last, "h", "boom", now, func(int) time.Duration { return time.Hour })
	tests := []struct {
		name      string
		last      reconcile.Record
		hash      string
		st        *kv1.CommonStatus
		gen       int64
		wantSkip  bool
		wantAfter time.Duration
	}{
		{"unchanged and ready skips until the resync", last, "h", readyStatus(2, metav1.ConditionTrue), 2, true, resyncDue(last.At, resync, "").Sub(now)},
		{"never applied (e.g. after a restart)", reconcile.Record{}, "h", readyStatus(2, metav1.ConditionTrue), 2, false, 0},
		{"spec or Secret changed", last, "other", readyStatus(2, metav1.ConditionTrue), 2, false, 0},
		{"resync due", reconcile.Succeeded(reconcile.Record{}, "h", "", now.Add(-resync*3/2)), "h", readyStatus(2, metav1.ConditionTrue), 2, false, 0},
		{"not ready", last, "h", readyStatus(2, metav1.ConditionFalse), 2, false, 0},
		{"failed: retried on every pass", failed, "h", readyStatus(2, metav1.ConditionFalse), 2, false, 0},
		{"new generation", last, "h", readyStatus(1, metav1.ConditionTrue), 2, false, 0},
		{"no condition", last, "h", &kv1.CommonStatus{ObservedGeneration: 2}, 2, false, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := reconcile.Status{Conditions: &tc.st.Conditions, ObservedGeneration: &tc.st.ObservedGeneration}
			p := reconcile.Decide(tc.last, tc.hash, now, reconcile.ReadyAt(st, tc.gen), policy)
			if p.Act == tc.wantSkip || p.Wait != tc.wantAfter {
				t.Fatalf("Decide = %+v, want skip %v after %v", p, tc.wantSkip, tc.wantAfter)
			}
		})
	}
}

// The forced resyncs of resources applied at one instant spread over the
// period; each one's first resync comes between half and one and a half
// periods after the apply, and the next ones exactly a period apart.
func TestResyncDueSpreads(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 1, 1, 12, 0, 0, 123, time.UTC)
	resync := 30 * time.Minute
	const n, buckets = 1000, 10
	var count [buckets]int
	for i := range n {
		uid := types.UID(fmt.Sprintf("3f1c2a9e-%04d-4d7b-9a51-8e2f6c0b%04d", i, i))
		due := resyncDue(at, resync, uid)
		if d := due.Sub(at); d < resync/2 || d >= resync*3/2 {
			t.Fatalf("%s: first resync %v after the apply, want within [%v, %v)", uid, d, resync/2, resync*3/2)
		}
		if next := resyncDue(due.Add(40*time.Millisecond), resync, uid); next.Sub(due) != resync {
			t.Fatalf("%s: the resync after the first one comes %v later, want %v", uid, next.Sub(due), resync)
		}
		count[int(due.Sub(at.Add(resync/2))/(resync/buckets))]++
	}
	for b, c := range count {
		if c < n/buckets/2 || c > n/buckets*2 {
			t.Fatalf("resyncs per tenth of the period %v: bucket %d holds %d of %d, want about %d", count, b, c, n, n/buckets)
		}
	}
	if due := resyncDue(at, 0, "x"); !due.Equal(at) {
		t.Fatalf("a zero period: due %v, want at once", due)
	}
}

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want time.Duration
	}{{"", 10 * time.Second}, {"30s", 30 * time.Second}, {"1m30s", 90 * time.Second}, {"bogus", 10 * time.Second}, {"0s", 10 * time.Second}} {
		if got := retryAfter(&kv1.CommonSpec{RetryInterval: tc.in}, 10*time.Second); got != tc.want {
			t.Errorf("retryAfter(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestPlanEndpoint(t *testing.T) {
	t.Parallel()
	ep := func(id, url string, en bool) endpoints.Endpoint {
		return endpoints.Endpoint{ID: id, URL: url, Enabled: en, Availability: gophercloud.AvailabilityPublic}
	}
	tests := []struct {
		name       string
		found      []endpoints.Endpoint
		wantAdopt  string
		wantURL    string
		wantEnable *bool
		wantDups   []string
	}{
		{"none: create", nil, "", "", nil, nil},
		{"match: nothing to do", []endpoints.Endpoint{ep("a", "http://x", true)}, "a", "", nil, nil},
		{"disabled: adopt and enable", []endpoints.Endpoint{ep("a", "http://x", false)}, "a", "", ptr(true), nil},
		{"URL changed: patch in place", []endpoints.Endpoint{ep("a", "http://old", true)}, "a", "http://x", nil, nil},
		{"duplicates: lowest ID adopted, others reported", []endpoints.Endpoint{ep("c", "http://x", true), ep("a", "http://y", true), ep("b", "http://x", true)}, "a", "http://x", nil, []string{"b", "c"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := planEndpoint(tc.found, "", "http://x", true)
			if tc.wantAdopt == "" {
				if p.adopt != nil {
					t.Fatalf("adopted %s, want create", p.adopt.ID)
				}
				return
			}
			if p.adopt == nil || p.adopt.ID != tc.wantAdopt {
				t.Fatalf("adopt = %v, want %s", p.adopt, tc.wantAdopt)
			}
			if p.update.URL != tc.wantURL || (p.update.Enabled == nil) != (tc.wantEnable == nil) {
				t.Fatalf("update = %+v, want url %q enabled %v", p.update, tc.wantURL, tc.wantEnable)
			}
			if p.needUpdate != (tc.wantURL != "" || tc.wantEnable != nil) {
				t.Fatalf("needUpdate = %v", p.needUpdate)
			}
			if len(p.duplicates) != len(tc.wantDups) {
				t.Fatalf("duplicates = %v, want %v", p.duplicates, tc.wantDups)
			}
			for i := range p.duplicates {
				if p.duplicates[i] != tc.wantDups[i] {
					t.Fatalf("duplicates = %v, want %v", p.duplicates, tc.wantDups)
				}
			}
		})
	}
}

func TestEndpointRequestBodies(t *testing.T) {
	t.Parallel()
	m, _ := endpointCreate{Interface: "public", URL: "http://x", ServiceID: "s", RegionID: "RegionOne", Enabled: true}.ToEndpointCreateMap()
	e := m["endpoint"].(map[string]any)
	if e["region_id"] != "RegionOne" || e["region"] != nil || e["enabled"] != true {
		t.Fatalf("create body must send region_id only: %v", e)
	}
	u, _ := endpointUpdate{URL: "http://y"}.ToEndpointUpdateMap()
	if b := u["endpoint"].(map[string]any); len(b) != 1 || b["url"] != "http://y" {
		t.Fatalf("update body must carry the URL only: %v", b)
	}
}

func TestUpdates(t *testing.T) {
	t.Parallel()
	dom := func(name, desc string, en *bool) want {
		return want{name: name, description: desc, enabled: en, hasEnabled: true}
	}
	if _, ok := diff(dom("d", "", nil), state{name: "d", enabled: true, description: "kept"}); ok {
		t.Error("an empty description must leave Keystone's alone")
	}
	if p, ok := diff(dom("d", "new", ptr(true)), state{name: "d", enabled: true, description: "old"}); !ok || *p.description != "new" || p.enabled != nil || p.name != nil {
		t.Errorf("description change: %+v %v", p, ok)
	}
	svc := want{name: "s", typ: "t", enabled: ptr(false), hasType: true, hasEnabled: true}
	if p, ok := diff(svc, state{name: "s", typ: "t", enabled: true}); !ok || *p.enabled || p.fields() != "enabled" {
		t.Errorf("enabled change must be applied: %+v %v", p, ok)
	}
	if p, ok := diff(want{name: "s", typ: "t", description: "d2", hasType: true, hasEnabled: true}, state{name: "s", typ: "t", enabled: true, description: "d1"}); !ok || *p.description != "d2" {
		t.Errorf("description change must be applied: %+v %v", p, ok)
	}
	if _, ok := diff(want{name: "s", typ: "t", description: "d", hasType: true, hasEnabled: true}, state{name: "s", typ: "t", enabled: true, description: "d"}); ok {
		t.Error("no change, no PATCH")
	}
	// A changed name (and, for a service, type) is a rename in place.
	if p, ok := diff(want{name: "s2", typ: "t2", hasType: true}, state{name: "s", typ: "t"}); !ok || *p.name != "s2" || *p.typ != "t2" || p.fields() != "name, type" {
		t.Errorf("rename: %+v %v", p, ok)
	}
	// Letter case alone is not a rename; a kind without enabled ignores it.
	if _, ok := diff(want{name: "Member"}, state{name: "member"}); ok {
		t.Error("a case-only difference must not be sent")
	}
	if u, ok := userUpdate(kv1.UserSpec{Name: "new"}, "", users.User{Name: "old", Enabled: true}); !ok || u.Name != "new" {
		t.Errorf("user rename: %+v %v", u, ok)
	}
	if u, ok := userUpdate(kv1.UserSpec{}, "p2", users.User{Enabled: true, DefaultProjectID: "p1"}); !ok || u.DefaultProjectID != "p2" || u.Password != "" {
		t.Errorf("default project change: %+v %v", u, ok)
	}
	if _, ok := userUpdate(kv1.UserSpec{}, "", users.User{Enabled: true}); ok {
		t.Error("no change, no PATCH")
	}
}

func TestDecidePassword(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		res  keystone.ProbeResult
		err  error
		want passwordAction
	}{
		{"accepted: keep", keystone.ProbeAccepted, nil, passwordKeep},
		{"401: write", keystone.ProbeRejected, nil, passwordWrite},
		{"network error: never write", 0, errors.New("connection refused"), passwordFail},
		{"non-401: never write", 0, gophercloud.ErrUnexpectedResponseCode{Actual: 500}, passwordFail},
	}
	for _, tc := range tests {
		if got := decidePassword(tc.res, tc.err); got != tc.want {
			t.Errorf("%s: decidePassword = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestIDCacheExpires(t *testing.T) {
	t.Parallel()
	c := &idCache{}
	now := time.Now()
	c.put("service", "id1", now.Add(time.Second))
	if id, ok := c.get("service", now); !ok || id != "id1" {
		t.Fatalf("get = %q, %v", id, ok)
	}
	if _, ok := c.get("service", now.Add(2*time.Second)); ok {
		t.Fatal("an expired entry must not be returned")
	}
	if _, ok := (*idCache)(nil).get("x", now); ok {
		t.Fatal("a nil cache caches nothing")
	}
}

func TestWakeOnlyWaitersOfTheWrittenKind(t *testing.T) {
	t.Parallel()
	s := &waitSet{waiting: map[types.NamespacedName]string{}, events: make(chan event.GenericEvent, 4),
		newObj: func() event.GenericEvent { return event.GenericEvent{Object: &kv1.RoleAssignment{}} }}
	onUser := types.NamespacedName{Namespace: "ns", Name: "a"}
	onProject := types.NamespacedName{Namespace: "ns", Name: "b"}
	s.note(onUser, &missingError{"user", `"cinder"`})
	s.note(onProject, &missingError{"project", `"service"`})
	s.wake("user")
	if ev := <-s.events; ev.Object.GetName() != "a" {
		t.Fatalf("woke %s, want a", ev.Object.GetName())
	}
	if _, still := s.waiting[onProject]; !still || len(s.waiting) != 1 {
		t.Fatalf("waiting = %v, want only b", s.waiting)
	}
	s.note(onProject, nil)
	if len(s.waiting) != 0 {
		t.Fatal("a resource that applied must stop waiting")
	}
}
