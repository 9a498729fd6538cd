package orders

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/delivery/apply"
	"github.com/c5c3/orderhub/delivery/eso"
)

// RequeueTarget is the longest wait between passes of an order on a target
// cluster (docs/reference/keystoneapplicationcredential.md, "Conditions").
const RequeueTarget = 10 * time.Minute

// FieldOwner is the server-side-apply field manager of every object the
// order reconcilers write.
const FieldOwner = "orderhub-orders"

// Backup is the source Secret and PushSecret that back up an order's delivery
// to OpenBao (docs/reference/keystoneapplicationcredential.md, "Delivered
// Secret contract").
type Backup struct {
	Plane                  *c5c3v1alpha1.ControlPlane
	SourceName, BackupName string
	Labels                 map[string]string
	// Path is the OpenBao KV path the document is pushed to.
	Path string
	// Data: each key is pushed as the property of the same name at Path.
	Data map[string][]byte
}

type BackupState struct {
	// Pushed: ESO reports the push of exactly Data to Path.
	Pushed        bool
	StoreNotReady bool
	Message       string
}

// Ensure writes b's children through hub and reports whether the current
// document was pushed; a changed document forces a new push. Errors:
// Kubernetes failures (a Conflict is transient).
func (b Backup) Ensure(ctx context.Context, hub client.Client) (BackupState, error) {
	if b.Plane == nil || b.SourceName == "" || b.BackupName == "" || b.Path == "" || len(b.Data) == 0 {
		return BackupState{}, errors.New("orders: a backup needs a plane, child names, a path and data")
	}
	ns := b.Plane.Namespace
	store, kind := StoreOf(b.Plane)
	if ready, msg := StoreReady(ctx, hub, b.Plane); !ready {
		return BackupState{StoreNotReady: true, Message: msg}, nil
	}
	if _, err := apply.Deliver(ctx, hub, FieldOwner, apply.Secret{Namespace: ns, Name: b.SourceName, Data: b.Data, Labels: b.Labels}); err != nil {
		return BackupState{}, err
	}
	hash := eso.ContentHash(b.Data)
	var data []eso.PushData
	for _, k := range sortedKeys(b.Data) {
		data = append(data, eso.PushData{SecretKey: k, RemoteKey: b.Path, Property: k})
	}
	push, err := eso.PushSecret{Name: b.BackupName, Namespace: ns, Labels: b.Labels,
		Annotations: map[string]string{eso.AnnotationContentHash: hash}, StoreName: store, StoreKind: kind,
		SourceSecretName: b.SourceName, Data: data}.Build()
	if err != nil {
		return BackupState{}, err
	}
	if err := eso.Apply(ctx, hub, FieldOwner, push); err != nil {
		return BackupState{}, err
	}
	if !eso.IsReadyAndCurrent(push) {
		return BackupState{Message: "ESO has not pushed the current document to OpenBao yet: " + ESOMessage(push)}, nil
	}
	for _, k := range sortedKeys(b.Data) {
		if !eso.IsPushed(push, kind, store, b.Path, k) {
			return BackupState{Message: fmt.Sprintf("ESO reports no push of %s to %s yet", k, b.Path)}, nil
		}
	}
	return BackupState{Pushed: true}, nil
}

// StoreOf returns the plane's SecretStore, or its ClusterSecretStore.
func StoreOf(cp *c5c3v1alpha1.ControlPlane) (name, kind string) {
	if n, ok := controlplane.StoreName(cp); ok {
		return n, eso.KindSecretStore
	}
	return cp.Spec.SecretStoreRef.Name, eso.KindClusterSecretStore
}

// StoreReady reports whether StoreOf is Ready, with a message otherwise.
func StoreReady(ctx context.Context, hub client.Reader, cp *c5c3v1alpha1.ControlPlane) (bool, string) {
	return StoreReadyIn(ctx, hub, cp, cp.Namespace)
}

// StoreReadyIn is StoreReady as seen from namespace.
func StoreReadyIn(ctx context.Context, hub client.Reader, cp *c5c3v1alpha1.ControlPlane, namespace string) (bool, string) {
	name, kind := StoreOf(cp)
	u := eso.New(eso.SecretStoreGVK)
	key := types.NamespacedName{Namespace: namespace, Name: name}
	if kind == eso.KindClusterSecretStore {
		u = eso.New(eso.ClusterSecretStoreGVK)
		key = types.NamespacedName{Name: name}
	}
	if err := hub.Get(ctx, key, u); err != nil {
		return false, fmt.Sprintf("%s %s is not readable in namespace %s: %v", kind, name, namespace, err)
	}
	if c := eso.ReadyCondition(u); !c.True() {
		return false, fmt.Sprintf("%s %s in namespace %s is not Ready (%s: %s): the secret backend is unreachable or refuses the store",
			kind, name, namespace, c.Reason, c.Message)
	}
	return true, ""
}

// ESOMessage summarises an ESO object's Ready condition for a status message.
func ESOMessage(u *unstructured.Unstructured) string {
	c := eso.ReadyCondition(u)
	if !c.Found {
		return "no Ready condition yet"
	}
	if c.True() && !eso.IsSyncedCurrent(u) {
		return "the forced sync has not run yet"
	}
	return c.Reason + ": " + c.Message
}

// Delivered is an order's <name>-credentials Secret on its cluster
// (docs/reference/keystoneapplicationcredential.md, "Delivered Secret contract").
type Delivered struct {
	Order Order
	Owner client.Object
	Data  map[string][]byte
}

func SecretName(orderName string) string { return orderName + "-credentials" }

// OrderOfSecretName is SecretName's inverse: the order name a delivered
// Secret's name carries; ok is false for a name without the suffix.
func OrderOfSecretName(secret string) (string, bool) {
	order, ok := strings.CutSuffix(secret, "-credentials")
	return order, ok && order != ""
}

// Write applies d through c with apply.Deliver; a Secret the order does not own
// is refused (apply.IsNotOwned). Call only after Backup.Ensure reported Pushed.
func (d Delivered) Write(ctx context.Context, c client.Client) error {
	gvk, err := c.GroupVersionKindFor(d.Owner)
	if err != nil {
		return err
	}
	owner := metav1.OwnerReference{APIVersion: gvk.GroupVersion().String(), Kind: gvk.Kind,
		Name: d.Owner.GetName(), UID: d.Owner.GetUID()}
	_, err = apply.Deliver(ctx, c, FieldOwner, apply.Secret{Namespace: d.Order.Namespace, Name: SecretName(d.Order.Name),
		Data: d.Data, Owner: &owner, Labels: map[string]string{
			KindLabelKey(d.Order.Kind, "name"):      d.Order.Name,
			KindLabelKey(d.Order.Kind, "namespace"): d.Order.Namespace,
		}})
	return err
}

// DeleteIfPresent deletes obj when c reads it and it is not being deleted.
// obj is overwritten by the read.
func DeleteIfPresent(ctx context.Context, c client.Client, obj client.Object) error {
	switch err := c.Get(ctx, client.ObjectKeyFromObject(obj), obj); {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		return fmt.Errorf("read %T %s/%s: %w", obj, obj.GetNamespace(), obj.GetName(), err)
	case !obj.GetDeletionTimestamp().IsZero():
		return nil
	}
	return DeleteIfExists(ctx, c, obj)
}

// DeleteIfExists deletes obj; NotFound is not an error. A metadata-only
// object is deleted as an unstructured one of its kind (asUnstructured).
func DeleteIfExists(ctx context.Context, c client.Client, obj client.Object) error {
	if err := c.Delete(ctx, asUnstructured(obj)); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete %T %s/%s: %w", obj, obj.GetNamespace(), obj.GetName(), err)
	}
	return nil
}

// asUnstructured is obj, or, for a *metav1.PartialObjectMetadata, an
// Unstructured of its kind, name, namespace and UID. controller-runtime
// v0.25 deletes a PartialObjectMetadata with its typed client, which decodes
// the answer with the scheme (sigs.k8s.io/controller-runtime/pkg/client,
// typed_client.go): when finalizers keep the object (ESO's on a PushSecret)
// the answer is the object, a kind the hub's scheme does not hold, and the
// delete that happened reads as an error.
func asUnstructured(obj client.Object) client.Object {
	m, ok := obj.(*metav1.PartialObjectMetadata)
	if !ok {
		return obj
	}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(m.GroupVersionKind())
	u.SetNamespace(m.Namespace)
	u.SetName(m.Name)
	u.SetUID(m.UID)
	return u
}
