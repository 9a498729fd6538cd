package identity

import (
	"context"
	"fmt"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
	"github.com/c5c3/orderhub/internal/keystone"
)

// passwordInput is the key under which a User's password travels from
// inputs to apply (and into the desired-state hash, never into status or logs).
const passwordInput = "password"

// prober checks a password with an unscoped token (keystone.Session).
type prober interface {
	ProbePassword(ctx context.Context, userID, password string) (keystone.ProbeResult, error)
}

// userActuator reconciles User: GET|POST /v3/users, PATCH /v3/users/{id}, and
// the password probe POST /v3/auth/tokens.
type userActuator struct {
	lookups
	probe prober
	// self returns the ID of the user the controller authenticates as (known
	// once the session is connected); a User resolving to it is refused
	// (writing its password would lock the controller out).
	self func() string
	// budget keeps retries of a failed password write from probing again.
	budget *probeBudget
	// held remembers the value Keystone last held per resource, so an
	// unchanged password is probed only on the forced resync, at most once
	// per probeInterval (heldpassword.go).
	held          *heldPasswords
	probeInterval time.Duration
	now           func() time.Time // nil: time.Now
}

var _ actuator[*kv1.User] = userActuator{}

func (userActuator) kind() string         { return "User" }
func (userActuator) spec(o *kv1.User) any { return o.Spec }

// passwordKey is spec.passwordSecret.key, defaulting to OS_PASSWORD.
func passwordKey(o *kv1.User) string {
	if o.Spec.PasswordSecret.Key == "" {
		return kv1.DefaultPasswordKey
	}
	return o.Spec.PasswordSecret.Key
}

// inputs reads the password from the Secret in the User's namespace.
func (userActuator) inputs(ctx context.Context, c client.Reader, o *kv1.User) (map[string]string, error) {
	var s corev1.Secret
	key := client.ObjectKey{Namespace: o.Namespace, Name: o.Spec.PasswordSecret.Name}
	if err := c.Get(ctx, key, &s); err != nil {
		return nil, fmt.Errorf("read password Secret %s: %w", key.Name, err)
	}
	k := passwordKey(o)
	pw, ok := s.Data[k]
	if !ok || len(pw) == 0 {
		return nil, fmt.Errorf("password Secret %s has no key %s (or it is empty)", key.Name, k)
	}
	return map[string]string{passwordInput: string(pw)}, nil
}

// userUpdate is the PATCH (without password) that makes observed match spec;
// ok is false when nothing differs; a changed name is sent too. An empty spec description leaves
// Keystone's as it is; an unset defaultProject leaves Keystone's as it is.
func userUpdate(spec kv1.UserSpec, defaultProjectID string, observed users.User) (users.UpdateOpts, bool) {
	var u users.UpdateOpts
	ok := false
	if !keystone.NamesEqual(spec.Name, observed.Name) {
		// A rename in place (docs/identity.md, "Edits"); letter case alone is not one.
		u.Name, ok = spec.Name, true
	}
	if spec.Description != "" && spec.Description != observed.Description {
		u.Description, ok = ptr(spec.Description), true
	}
	if defaultProjectID != "" && defaultProjectID != observed.DefaultProjectID {
		u.DefaultProjectID, ok = defaultProjectID, true
	}
	if want := enabled(spec.Enabled); want != observed.Enabled {
		u.Enabled, ok = ptr(want), true
	}
	return u, ok
}

// passwordAction is what to do with the password after a probe.
type passwordAction int

const (
	passwordKeep  passwordAction = iota // the probe succeeded: Keystone has it
	passwordWrite                       // the probe got 401: write it
	passwordFail                        // any other outcome: do not write, report
)

// decidePassword maps a probe outcome to an action: write only on 401
// (docs/identity.md, "Users and passwords"; never after a network error or a
// non-401).
func decidePassword(res keystone.ProbeResult, err error) passwordAction {
	switch {
	case err != nil:
		return passwordFail
	case res == keystone.ProbeRejected:
		return passwordWrite
	case res == keystone.ProbeAccepted:
		return passwordKeep
	}
	return passwordFail
}

// apply creates or updates the user. For an existing, enabled user it probes
// the password when its value changed or on the forced resync, and writes it
// only on 401 (checkPassword); the probe budget keeps a retried write from
// probing a value Keystone already rejected, so each value costs at most one
// failed login while its write keeps failing.
func (a userActuator) apply(ctx context.Context, o *kv1.User, in applyInput) (outcome, error) {
	did, err := a.domainID(ctx, o.Spec.Domain)
	if err != nil {
		return outcome{}, err
	}
	dpid := ""
	if dp := o.Spec.DefaultProject; dp != nil {
		if dpid, err = a.projectID(ctx, dp.Name, dp.Domain); err != nil {
			return outcome{}, err
		}
	}
	where := fmt.Sprintf("user %s in domain %s", o.Spec.Name, displayDomain(o.Spec.Domain))
	pw := in.values[passwordInput]
	u, created, err := ensureTracked(ctx, tracking[users.User]{
		what: where, recorded: o.Status.UserID, shared: in.shared, unique: true,
		find: func(ctx context.Context) (users.User, bool, error) { return a.findUser(ctx, o.Spec.Name, did) },
		get: func(ctx context.Context, id string) (users.User, bool, error) {
			u, found, err := getFound(users.Get(ctx, a.c, id).Extract())
			return u, found && u.DomainID == did, err
		},
		create: func(ctx context.Context) (users.User, error) {
			return created1(users.Create(ctx, a.c, users.CreateOpts{Name: o.Spec.Name, DomainID: did, Description: o.Spec.Description,
				DefaultProjectID: dpid, Enabled: ptr(enabled(o.Spec.Enabled)), Password: pw}).Extract())
		},
		id:   func(u users.User) string { return u.ID },
		name: func(u users.User) string { return u.Name },
	})
	if err != nil {
		return outcome{}, err
	}
	if err := refuseSelf(u.ID, a.selfID(), where); err != nil {
		return outcome{}, err
	}
	a.remember("user", did, o.Spec.Name, u.ID)
	if created {
		// Created with the password: nothing to probe.
		a.held.note(client.ObjectKeyFromObject(o), o.UID, u.ID, pw, a.clock())
		o.Status.UserID = u.ID
		return changed("created " + where), nil
	}
	o.Status.UserID = u.ID
	var out outcome
	if out.changes, err = a.update(ctx, o, u, did, dpid, where); err != nil {
		return outcome{}, err
	}
	if !enabled(o.Spec.Enabled) {
		// A disabled user cannot authenticate, so the password cannot be
		// probed; once re-enabled it is probed again.
		a.held.forget(client.ObjectKeyFromObject(o))
		out.message = where + " is disabled; password not checked"
		return out, nil
	}
	return a.checkPassword(ctx, o, u.ID, pw, in.resync, out)
}

// update patches the existing user u (in domain did) where it differs from
// the spec (userUpdate) and returns the change made, if any.
func (a userActuator) update(ctx context.Context, o *kv1.User, u users.User, did, dpid, where string) ([]string, error) {
	upd, ok := userUpdate(o.Spec, dpid, u)
	if !ok {
		return nil, nil
	}
	if _, err := users.Update(ctx, a.c, u.ID, upd).Extract(); err != nil {
		return nil, fmt.Errorf("update %s: %w", where, err)
	}
	msg := updated(where, fieldsOf(upd.ToUserUpdateMap()))
	if upd.Name != "" {
		msg += fmt.Sprintf(", was name %q", u.Name)
		a.forget("user", did, u.Name)
	}
	return []string{msg}, nil
}

// checkPassword probes the password of the existing, enabled user userID
// when probeDue says so and writes it only on 401 (docs/identity.md, "Users
// and passwords"); out carries the changes apply made before.
func (a userActuator) checkPassword(ctx context.Context, o *kv1.User, userID, pw string, resync bool, out outcome) (outcome, error) {
	where := fmt.Sprintf("user %s in domain %s", o.Spec.Name, displayDomain(o.Spec.Domain))
	key := client.ObjectKeyFromObject(o)
	if !a.held.due(key, o.UID, userID, pw, resync, a.clock(), a.probeInterval) {
		return upToDate(where, out), nil
	}
	action := passwordWrite
	var perr error
	if !a.budget.rejected(key, o.UID, pw) {
		var res keystone.ProbeResult
		res, perr = a.probe.ProbePassword(ctx, userID, pw)
		action = decidePassword(res, perr)
	}
	switch action {
	case passwordWrite:
		// Keystone rejected this value (now, or on an earlier attempt whose
		// write failed): remember it before writing, so a failed write is
		// retried without another failed login.
		a.budget.noteRejected(key, o.UID, pw)
		if _, err := users.Update(ctx, a.c, userID, users.UpdateOpts{Password: pw}).Extract(); err != nil {
			return outcome{}, fmt.Errorf("set password of %s (Keystone refused the current one; the write is retried without another login attempt): %w", where, err)
		}
		a.budget.forget(key)
		a.held.note(key, o.UID, userID, pw, a.clock())
		out.changes = append(out.changes, "set password of "+where)
		out.message = where + ": password set"
		return out, nil
	case passwordFail:
		return outcome{}, fmt.Errorf("check password of %s (not written): %w", where, perr)
	}
	a.budget.forget(key)
	a.held.note(key, o.UID, userID, pw, a.clock())
	return upToDate(where, out), nil
}

// upToDate is out with the Ready message of a user whose password Keystone holds.
func upToDate(where string, out outcome) outcome {
	out.message = where + " is up to date"
	if len(out.changes) > 0 {
		out.message = out.changes[0]
	}
	return out
}

func (a userActuator) clock() time.Time {
	if a.now == nil {
		return time.Now()
	}
	return a.now()
}

func (a userActuator) selfID() string {
	if a.self == nil {
		return ""
	}
	return a.self()
}

// forgetResource drops what the actuator remembers about a deleted resource.
func (a userActuator) forgetResource(key types.NamespacedName) {
	a.budget.forget(key)
	a.held.forget(key)
}

func (a userActuator) remove(ctx context.Context, o *kv1.User) error {
	id := o.Status.UserID
	if id == "" {
		var err error
		if id, err = a.userID(ctx, o.Spec.Name, o.Spec.Domain); err != nil {
			return err
		}
	}
	if self := a.selfID(); self != "" && id == self {
		return nil // never delete the controller's own account; release the resource only
	}
	if err := users.Delete(ctx, a.c, id).ExtractErr(); err != nil && !keystone.IsNotFound(err) {
		return fmt.Errorf("delete user %q: %w", o.Spec.Name, err)
	}
	a.forgetIn(ctx, "user", o.Spec.Domain, o.Spec.Name)
	return nil
}

// refuseSelf rejects managing the user the controller authenticates as:
// setting its password from a Secret would lock the controller out of
// Keystone, and deleting it would remove the controller's own account.
func refuseSelf(userID, self, where string) error {
	if self != "" && userID == self {
		return fmt.Errorf("%s is the user this controller authenticates as; refusing to manage it: choose another user", where)
	}
	return nil
}
