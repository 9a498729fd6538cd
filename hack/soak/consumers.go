package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"sort"
	"sync"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/applicationcredentials"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/delivery/cloudsyaml"
	"github.com/c5c3/orderhub/internal/testenv"
	"github.com/c5c3/orderhub/internal/testenv/consumerpods"
)

// Failure classes of a consumer's attempt.
const (
	// classRejected: Keystone answered and refused the credential (401, 403
	// or 404): what the hub promises never happens to an application
	// credential, and to a password only inside the re-read window.
	classRejected = "rejected"
	// classMalformed: the Secret holds no usable clouds.yaml cloud.
	classMalformed = "malformed"
	// classUnreachable: Keystone did not answer (a Keystone fault); not
	// the credential's fault.
	classUnreachable = "unreachable"
	// classUnread: the Secret could not be read and none was read before.
	classUnread = "unread"
)

// consumerSlack widens the password re-read window on both sides: the
// consumer's one-second period plus the status sampling period.
const consumerSlack = 3 * time.Second

type failure struct {
	At    time.Time `json:"at"`
	Class string    `json:"class"`
	// Stale: the Secret could not be re-read (apiserver away), so the
	// attempt used the last content read.
	Stale bool `json:"stale,omitempty"`
	// InWindow: a password failure inside the rotation's re-read window.
	InWindow bool   `json:"inWindow,omitempty"`
	Message  string `json:"message"`
}

type consumerStats struct {
	attempts, readErrors int
	failures             []failure
	lastAt               time.Time
	lastOK               bool
	// contents are the distinct credentials the Secret delivered (hashes).
	contents map[string]bool
}

// sample is one observation of the rotating account: inWindow while a
// rotation request is pending or the account is not Ready.
type sample struct {
	at       time.Time
	inWindow bool
}

// recorder collects what the consumers and watchers observed.
type recorder struct {
	mu        sync.Mutex
	consumers map[string]*consumerStats
	samples   []sample
	// acSeen: Keystone credential ids seen per cluster's user; acGens the
	// first and last generation seen in status.
	acSeen map[string]map[string]bool
	acGens map[string]*[2]int64
	pwGens [2]int64
	// steps: the application credentials' current rotation step, per
	// cluster, for the fault records.
	steps map[string]string
	// userIDs of the KeystoneUsers per cluster.
	userIDs map[string]string
	// timeline: the last logged status line of each application credential.
	timeline map[string]string
	// carried: per delivered Secret (delivered.id), the credentials it
	// carried from when a consumer first read each, in authloop's naming.
	carried map[string][]carriedCred
}

// carriedCred is a credential a Secret carried from at on.
type carriedCred struct {
	at   time.Time
	cred string
}

func newRecorder() *recorder {
	r := &recorder{consumers: map[string]*consumerStats{}, acSeen: map[string]map[string]bool{},
		acGens: map[string]*[2]int64{}, steps: map[string]string{}, userIDs: map[string]string{},
		timeline: map[string]string{}, carried: map[string][]carriedCred{}}
	for _, d := range consumerSecrets() {
		r.consumers[d.id()] = &consumerStats{contents: map[string]bool{}}
	}
	return r
}

// allSucceededSince returns nil when every consumer's latest attempt was
// after t and succeeded.
func (r *recorder) allSucceededSince(t time.Time) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for id, c := range r.consumers {
		if c.lastAt.Before(t) || !c.lastOK {
			return fmt.Errorf("consumer %s: last attempt %s ok=%v", id, c.lastAt.Format(time.RFC3339), c.lastOK)
		}
	}
	return nil
}

// inWindow reports whether a sample within consumerSlack of t was in the
// re-read window, or none was taken then (the account could not be read).
func (r *recorder) inWindow(t time.Time) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	seen := false
	for _, s := range r.samples {
		if s.at.Before(t.Add(-consumerSlack)) || s.at.After(t.Add(consumerSlack)) {
			continue
		}
		seen = true
		if s.inWindow {
			return true
		}
	}
	return !seen
}

// carry records that the Secret id carries cred at t, when that is new.
func (r *recorder) carry(id string, t time.Time, cred string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if l := r.carried[id]; len(l) == 0 || l[len(l)-1].cred != cred {
		r.carried[id] = append(l, carriedCred{at: t, cred: cred})
	}
}

// credentialAt is the credential the Secret id carried at t (authloop's
// naming: the application credential's id, or consumerpods.PasswordCredential),
// as the consumer last read it by then; "" before its first read.
func (r *recorder) credentialAt(id string, t time.Time) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	cred := ""
	for _, c := range r.carried[id] {
		if c.at.After(t) {
			break
		}
		cred = c.cred
	}
	return cred
}

// consume re-reads d every second and authenticates with it, until ctx ends.
func (e *env) consume(ctx context.Context, d delivered) {
	c := e.clusters[d.cluster]
	var last map[string][]byte
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		at := time.Now()
		var s corev1.Secret
		rctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		err := c.Get(rctx, client.ObjectKey{Namespace: d.namespace, Name: d.name}, &s)
		cancel()
		stale := false
		if err == nil {
			if id := string(s.Data["application_credential_id"]); d.kind == credApplication && id != string(last["application_credential_id"]) {
				e.logf("consumer %s: the Secret now carries credential %s", d.id(), short(id))
			}
			last = s.Data
		} else {
			stale = true
		}
		var f *failure
		switch {
		case last == nil:
			f = &failure{Class: classUnread, Message: err.Error()}
		default:
			cloud, perr := cloudsyaml.ParseCloud(last["clouds.yaml"], d.cloud)
			if perr != nil {
				f = &failure{Class: classMalformed, Message: perr.Error()}
				break
			}
			if !stale {
				e.rec.carry(d.id(), at, credentialOf(cloud))
			}
			actx, cancel := context.WithTimeout(ctx, 5*time.Second)
			_, aerr := testenv.Authenticate(actx, cloud)
			cancel()
			if aerr != nil {
				class := classUnreachable
				for _, code := range []int{http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound} {
					if gophercloud.ResponseCodeIs(aerr, code) {
						class = classRejected
					}
				}
				f = &failure{Class: class, Message: aerr.Error()}
			}
		}
		if ctx.Err() != nil {
			return
		}
		if f != nil {
			f.At, f.Stale = at.UTC(), stale
			if d.rotates && f.Class == classRejected {
				f.InWindow = e.rec.inWindow(at)
			}
		}
		e.rec.mu.Lock()
		st := e.rec.consumers[d.id()]
		st.attempts++
		if stale {
			st.readErrors++
		}
		if last != nil {
			h := sha256.Sum256(append(append([]byte{}, last["application_credential_id"]...), last["password"]...))
			st.contents[hex.EncodeToString(h[:8])] = true
		}
		st.lastAt, st.lastOK = at, f == nil
		if f != nil {
			st.failures = append(st.failures, *f)
		}
		e.rec.mu.Unlock()
		if f != nil && f.Class != classUnreachable {
			e.logf("consumer %s: %s (stale %v, in window %v): %s", d.id(), f.Class, f.Stale, f.InWindow, f.Message)
		}
	}
}

// credentialOf names the credential of a delivered cloud as authloop names
// the one it loaded.
func credentialOf(c cloudsyaml.Cloud) string {
	a := cloudsyaml.AuthOf(c)
	if a.ApplicationCredentialID != "" {
		return a.ApplicationCredentialID
	}
	return consumerpods.PasswordCredential(a.Password)
}

// requestRotations asks for a password rotation every rotationEvery: it
// creates the CredentialRotation, then raises its spec generation (the
// deferred intervalDays field, ignored otherwise), since a rotation fires
// once per spec generation (docs/reference/credentialrotation.md, "Spec",
// reMint). A request the apiserver refuses (an outage) is retried every
// second.
func (e *env) requestRotations(ctx context.Context) {
	n := int32(0)
	next := time.Now()
	for {
		if err := sleepUntil(ctx, next); err != nil {
			return
		}
		n++
		for ctx.Err() == nil {
			err := e.requestRotation(ctx, n)
			if err == nil {
				break
			}
			_ = sleepUntil(ctx, time.Now().Add(time.Second))
		}
		next = next.Add(rotationEvery)
	}
}

func (e *env) requestRotation(ctx context.Context, n int32) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var cr c5c3v1alpha1.CredentialRotation
	err := e.mgmt.Get(ctx, client.ObjectKey{Namespace: planeNS, Name: rotationName}, &cr)
	if isGone(err) {
		return e.mgmt.Create(ctx, &c5c3v1alpha1.CredentialRotation{ObjectMeta: metav1.ObjectMeta{Namespace: planeNS, Name: rotationName},
			Spec: c5c3v1alpha1.CredentialRotationSpec{Target: c5c3v1alpha1.CredentialRotationTargetServiceAccountPassword,
				KeystoneService: serviceName, ReMint: true, IntervalDays: &n}})
	}
	if err != nil {
		return err
	}
	cr.Spec.IntervalDays = &n
	return e.mgmt.Update(ctx, &cr)
}

// watchStatus samples the rotating account and the application
// credentials every second.
func (e *env) watchStatus(ctx context.Context) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		rctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		var ks c5c3v1alpha1.KeystoneService
		var cr c5c3v1alpha1.CredentialRotation
		kerr := e.mgmt.Get(rctx, client.ObjectKey{Namespace: planeNS, Name: serviceName}, &ks)
		cerr := e.mgmt.Get(rctx, client.ObjectKey{Namespace: planeNS, Name: rotationName}, &cr)
		at := time.Now()
		type acState struct {
			ac   c5c3v1alpha1.KeystoneApplicationCredential
			user c5c3v1alpha1.KeystoneUser
			err  error
		}
		acs := map[string]acState{}
		for cl, c := range e.clusters {
			var s acState
			s.err = c.Get(rctx, client.ObjectKey{Namespace: tenantNS, Name: orderName(cl, acBase)}, &s.ac)
			if s.err == nil {
				s.err = c.Get(rctx, client.ObjectKey{Namespace: tenantNS, Name: orderName(cl, userBase)}, &s.user)
			}
			acs[cl] = s
		}
		cancel()
		e.rec.mu.Lock()
		if kerr == nil && (cerr == nil || isGone(cerr)) {
			pending := cerr == nil && cr.Generation > cr.Status.LastTriggeredGeneration
			ready := meta.IsStatusConditionTrue(ks.Status.Conditions, c5c3v1alpha1.ConditionAccountReady)
			e.rec.samples = append(e.rec.samples, sample{at: at, inWindow: pending || !ready})
			if a := ks.Status.Account; a != nil && a.PasswordGeneration > 0 {
				if e.rec.pwGens[0] == 0 {
					e.rec.pwGens[0] = a.PasswordGeneration
				}
				e.rec.pwGens[1] = a.PasswordGeneration
			}
		}
		for cl, s := range acs {
			if s.err != nil {
				continue
			}
			st := s.ac.Status
			if st.CredentialGeneration > 0 {
				g := e.rec.acGens[cl]
				if g == nil {
					g = &[2]int64{st.CredentialGeneration, 0}
					e.rec.acGens[cl] = g
				}
				g[1] = st.CredentialGeneration
			}
			step := "steady"
			switch {
			case !meta.IsStatusConditionTrue(st.Conditions, c5c3v1alpha1.ConditionReady):
				step = "rotating"
			case st.PreviousCredentialID != "":
				step = "grace"
			}
			e.rec.steps[cl] = fmt.Sprintf("gen %d %s", st.CredentialGeneration, step)
			// The timeline of each rotation, for reading a failure against.
			line := fmt.Sprintf("gen %d id %s expires %s; previous gen %d id %s deleteAt %s; secret %q; next %s",
				st.CredentialGeneration, short(st.CredentialID), clock(st.CredentialExpiresAt), st.PreviousCredentialGeneration,
				short(st.PreviousCredentialID), clock(st.PreviousCredentialDeleteAt), st.SecretName, clock(st.NextRotation))
			if e.rec.timeline[cl] != line {
				e.rec.timeline[cl] = line
				name := cl
				if name == "" {
					name = "management"
				}
				e.logf("application credential@%s: %s", name, line)
			}
			if s.user.Status.UserID != "" {
				e.rec.userIDs[cl] = s.user.Status.UserID
			}
		}
		e.rec.mu.Unlock()
	}
}

// watchKeystone lists the users' application credentials in Keystone
// every two seconds, so a credential minted and deleted between two status
// reads still counts.
func (e *env) watchKeystone(ctx context.Context) {
	tick := time.NewTicker(2 * time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		e.rec.mu.Lock()
		users := map[string]string{}
		for cl, id := range e.rec.userIDs {
			users[cl] = id
		}
		e.rec.mu.Unlock()
		for cl, id := range users {
			ids, err := listAppCreds(ctx, e.identity, id)
			if err != nil {
				continue
			}
			e.rec.mu.Lock()
			if e.rec.acSeen[cl] == nil {
				e.rec.acSeen[cl] = map[string]bool{}
			}
			for _, ac := range ids {
				e.rec.acSeen[cl][ac] = true
			}
			e.rec.mu.Unlock()
		}
	}
}

// listAppCreds returns the ids of a user's application credentials.
func listAppCreds(ctx context.Context, ic *gophercloud.ServiceClient, userID string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	pages, err := applicationcredentials.List(ic, userID, nil).AllPages(ctx)
	if err != nil {
		return nil, err
	}
	acs, err := applicationcredentials.ExtractApplicationCredentials(pages)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, ac := range acs {
		out = append(out, ac.ID)
	}
	sort.Strings(out)
	return out, nil
}

// short is the first 8 characters of a Keystone id.
func short(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// clock renders t as hh:mm:ss UTC, "-" for none.
func clock(t *metav1.Time) string {
	if t == nil {
		return "-"
	}
	return t.UTC().Format("15:04:05")
}
