package apply

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// DefaultFieldOwner is the field manager orderhub's hub applies delivered
// Secrets with.
const DefaultFieldOwner = "orderhub-hub"

// ErrNotOwned is matched (errors.Is) by a *NotOwnedError.
var ErrNotOwned = errors.New("apply: secret exists and is not owned")

// NotOwnedError refuses a delivery because a Secret of the delivered name
// exists that the deliverer does not own (DeliveryRefused,
// docs/reference/keystoneapplicationcredential.md, "Conditions"). Its
// message names the Secret and why, never its data.
type NotOwnedError struct {
	Namespace, Name string
	// Reason says what ownership mark was missing.
	Reason string
}

func (e *NotOwnedError) Error() string {
	return fmt.Sprintf("secret %s/%s exists and is not ours: %s", e.Namespace, e.Name, e.Reason)
}

// Is makes errors.Is(err, ErrNotOwned) true.
func (e *NotOwnedError) Is(target error) bool { return target == ErrNotOwned }

// IsNotOwned reports whether err refuses a delivery for ownership.
func IsNotOwned(err error) bool { return errors.Is(err, ErrNotOwned) }

// Secret is a delivered Secret.
type Secret struct {
	Namespace, Name string
	// Data are the keys this delivery owns; the Secret's other keys are left
	// alone.
	Data map[string][]byte
	// Labels are applied (owned) labels.
	Labels map[string]string
	// Annotations are applied (owned) annotations.
	Annotations map[string]string
	// Owner, when set, is written as the Secret's controller owner reference
	// and is what ownership is judged by: an existing Secret is ours when it
	// carries a controller reference with Owner's UID. Without Owner an
	// existing Secret is ours when FieldOwner's apply entry is among its
	// managedFields.
	Owner *metav1.OwnerReference
	// Type is the Secret type of a new Secret; empty means Opaque. The type
	// of an existing Secret is immutable and not applied.
	Type corev1.SecretType
}

// Result says what Deliver did.
type Result string

const (
	// Created: no Secret existed; it was created.
	Created Result = "Created"
	// Applied: our Secret existed; the apply brought it to the desired keys
	// (a no-op when nothing differed).
	Applied Result = "Applied"
	// Unchanged: our Secret already held exactly what the delivery writes
	// (Current); nothing was sent.
	Unchanged Result = "Unchanged"
)

// Deliver writes s with server-side apply under fieldOwner (DefaultFieldOwner
// when empty) and forced ownership of the keys in s.Data, when the Secret is
// absent or ours (see Secret.Owner). A same-named Secret that is not ours is
// refused with a *NotOwnedError and left untouched. It returns the client's
// error on any other failure; a Conflict means the Secret was replaced
// between the read and the write and the caller should retry.
//
// The write is guarded: an absent Secret is created with Create (so a Secret
// appearing concurrently is not taken over), and an existing one is applied
// with its observed UID and resourceVersion as preconditions. An existing
// Secret that already holds exactly s (Current) is not written at all
// (Unchanged).
func Deliver(ctx context.Context, c client.Client, fieldOwner string, s Secret) (Result, error) {
	if fieldOwner == "" {
		fieldOwner = DefaultFieldOwner
	}
	if s.Namespace == "" || s.Name == "" || len(s.Data) == 0 {
		return "", errors.New("apply: a delivered Secret needs a namespace, a name and data")
	}
	if s.Owner != nil && (s.Owner.UID == "" || s.Owner.Name == "" || s.Owner.Kind == "" || s.Owner.APIVersion == "") {
		return "", errors.New("apply: owner reference needs apiVersion, kind, name and uid")
	}
	var cur corev1.Secret
	err := c.Get(ctx, types.NamespacedName{Namespace: s.Namespace, Name: s.Name}, &cur)
	switch {
	case apierrors.IsNotFound(err):
		return create(ctx, c, fieldOwner, s)
	case err != nil:
		return "", fmt.Errorf("apply: read secret %s/%s: %w", s.Namespace, s.Name, err)
	}
	if why := notOurs(&cur, s.Owner, fieldOwner); why != "" {
		return "", &NotOwnedError{Namespace: s.Namespace, Name: s.Name, Reason: why}
	}
	if Current(&cur, s, fieldOwner) {
		return Unchanged, nil
	}
	ac := applyConfig(s).WithUID(cur.UID).WithResourceVersion(cur.ResourceVersion)
	if err := c.Apply(ctx, ac, client.FieldOwner(fieldOwner), client.ForceOwnership); err != nil {
		return "", fmt.Errorf("apply: apply secret %s/%s: %w", s.Namespace, s.Name, err)
	}
	return Applied, nil
}

func create(ctx context.Context, c client.Client, fieldOwner string, s Secret) (Result, error) {
	sec := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: s.Namespace, Name: s.Name, Labels: s.Labels, Annotations: s.Annotations},
		Data:       s.Data,
		Type:       s.Type,
	}
	if s.Owner != nil {
		sec.OwnerReferences = []metav1.OwnerReference{controllerRef(*s.Owner)}
	}
	if err := c.Create(ctx, sec, client.FieldOwner(fieldOwner)); err != nil {
		return "", fmt.Errorf("apply: create secret %s/%s: %w", s.Namespace, s.Name, err)
	}
	// Take the fields over as an apply manager, so later applies own exactly
	// these keys and SSA keeps what others add. Another writer may change the
	// Secret between the create and the takeover (K-ORC adds its finalizer to
	// a clouds.yaml document an object of its already names): the takeover is
	// then retried at the Secret's current resourceVersion, as long as it is
	// still the Secret created here (same UID). Without that retry the Secret
	// would stay without the Apply entry, and every later Deliver would refuse
	// it as not ours.
	rv := sec.ResourceVersion
	err := retry.RetryOnConflict(retry.DefaultBackoff, func() error {
		ac := applyConfig(s).WithUID(sec.UID).WithResourceVersion(rv)
		err := c.Apply(ctx, ac, client.FieldOwner(fieldOwner), client.ForceOwnership)
		if !apierrors.IsConflict(err) {
			return err
		}
		var cur corev1.Secret
		if gerr := c.Get(ctx, types.NamespacedName{Namespace: s.Namespace, Name: s.Name}, &cur); gerr != nil {
			return gerr
		}
		if cur.UID != sec.UID {
			return fmt.Errorf("the created secret was replaced (uid %s, created %s)", cur.UID, sec.UID)
		}
		rv = cur.ResourceVersion
		return err
	})
	if err != nil {
		return "", fmt.Errorf("apply: apply created secret %s/%s: %w", s.Namespace, s.Name, err)
	}
	return Created, nil
}

func applyConfig(s Secret) *corev1ac.SecretApplyConfiguration {
	ac := corev1ac.Secret(s.Name, s.Namespace).WithData(s.Data)
	if len(s.Labels) > 0 {
		ac.WithLabels(s.Labels)
	}
	if len(s.Annotations) > 0 {
		ac.WithAnnotations(s.Annotations)
	}
	if s.Owner != nil {
		o := controllerRef(*s.Owner)
		ac.WithOwnerReferences(metav1ac.OwnerReference().WithAPIVersion(o.APIVersion).WithKind(o.Kind).
			WithName(o.Name).WithUID(o.UID).WithController(true).WithBlockOwnerDeletion(true))
	}
	return ac
}

func controllerRef(o metav1.OwnerReference) metav1.OwnerReference {
	t := true
	o.Controller, o.BlockOwnerDeletion = &t, &t
	return o
}

// Owned reports whether sec is ours: with owner, by a controller reference
// carrying owner's UID; without, by an Apply entry of fieldOwner in its
// managedFields.
func Owned(sec *corev1.Secret, owner *metav1.OwnerReference, fieldOwner string) bool {
	return notOurs(sec, owner, fieldOwner) == ""
}

func notOurs(sec *corev1.Secret, owner *metav1.OwnerReference, fieldOwner string) string {
	if owner != nil {
		ref := metav1.GetControllerOfNoCopy(sec)
		if ref == nil {
			return "it has no controller owner reference"
		}
		if ref.UID != owner.UID {
			return fmt.Sprintf("its controller is %s %s (uid %s)", ref.Kind, ref.Name, ref.UID)
		}
		return ""
	}
	for _, m := range sec.ManagedFields {
		if m.Manager == fieldOwner && m.Operation == metav1.ManagedFieldsOperationApply {
			return ""
		}
	}
	return fmt.Sprintf("field manager %s has not applied it", fieldOwner)
}

// Current reports whether applying s to cur under fieldOwner would change
// nothing, so the apply can be left out: fieldOwner has an Apply entry in
// cur's managedFields (the field sets are not read; the hub's cache drops
// them), and cur's data, labels, annotations and owner references are
// exactly s's (an owner reference as Deliver writes it). Exact, not
// inclusive: a key, label or annotation s no longer carries may be one a
// previous apply set, which only an apply removes, so any extra one, even
// another writer's, sends the apply
// (docs/reference/keystoneapplicationcredential.md, "Delivered Secret
// contract"). The type is not compared; an existing Secret's type is
// immutable and not applied.
func Current(cur *corev1.Secret, s Secret, fieldOwner string) bool {
	applied := false
	for _, m := range cur.ManagedFields {
		if m.Manager == fieldOwner && m.Operation == metav1.ManagedFieldsOperationApply && m.Subresource == "" {
			applied = true
		}
	}
	if !applied || len(cur.Data) != len(s.Data) || len(cur.StringData) > 0 ||
		!maps.Equal(cur.Labels, s.Labels) || !maps.Equal(cur.Annotations, s.Annotations) {
		return false
	}
	for k, v := range s.Data {
		got, ok := cur.Data[k]
		if !ok || !bytes.Equal(got, v) {
			return false
		}
	}
	if s.Owner == nil {
		return len(cur.OwnerReferences) == 0
	}
	want := controllerRef(*s.Owner)
	return len(cur.OwnerReferences) == 1 && reflect.DeepEqual(cur.OwnerReferences[0], want)
}
