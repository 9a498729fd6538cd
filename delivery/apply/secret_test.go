package apply

import (
	"context"
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

var owner = &metav1.OwnerReference{APIVersion: "c5c3.io/v1alpha1", Kind: "KeystoneApplicationCredential",
	Name: "appcred", UID: types.UID("uid-1")}

func TestDeliverRefusesForeignSecret(t *testing.T) {
	foreign := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "appcred-credentials"},
		Data: map[string][]byte{"mine": []byte("do not touch")}}
	otherCtl := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "other-credentials",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "x", UID: "uid-2",
			Controller: new(true)}}}}
	c := fake.NewClientBuilder().WithObjects(foreign, otherCtl).Build()
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		owner *metav1.OwnerReference
		want  string
	}{
		{"appcred-credentials", owner, "no controller owner reference"},
		{"other-credentials", owner, "its controller is ConfigMap x"},
		{"appcred-credentials", nil, "has not applied it"},
	} {
		_, err := Deliver(ctx, c, "", Secret{Namespace: "ns", Name: tc.name, Owner: tc.owner,
			Data: map[string][]byte{"application_credential_secret": []byte("s3cr3t")}})
		var noe *NotOwnedError
		if !errors.As(err, &noe) || !IsNotOwned(err) || !errors.Is(err, ErrNotOwned) {
			t.Fatalf("%s: want NotOwnedError, got %v", tc.name, err)
		}
		if !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "s3cr3t") {
			t.Errorf("%s: message %q", tc.name, err)
		}
	}
	var got corev1.Secret
	_ = c.Get(ctx, types.NamespacedName{Namespace: "ns", Name: "appcred-credentials"}, &got)
	if len(got.Data) != 1 || string(got.Data["mine"]) != "do not touch" {
		t.Fatalf("refused Secret was changed: %v", got.Data)
	}
}

func TestDeliverValidates(t *testing.T) {
	c := fake.NewClientBuilder().Build()
	for name, s := range map[string]Secret{
		"no name":       {Namespace: "ns", Data: map[string][]byte{"k": nil}},
		"no data":       {Namespace: "ns", Name: "x"},
		"owner w/o uid": {Namespace: "ns", Name: "x", Data: map[string][]byte{"k": nil}, Owner: &metav1.OwnerReference{Kind: "K", Name: "n", APIVersion: "v1"}},
	} {
		if _, err := Deliver(context.Background(), c, "", s); err == nil {
			t.Errorf("%s: delivered", name)
		}
	}
}

func TestOwned(t *testing.T) {
	s := &corev1.Secret{}
	if Owned(s, owner, DefaultFieldOwner) || Owned(s, nil, DefaultFieldOwner) {
		t.Fatal("a bare Secret is owned")
	}
	s.OwnerReferences = []metav1.OwnerReference{controllerRef(*owner)}
	if !Owned(s, owner, DefaultFieldOwner) {
		t.Fatal("controller reference not recognised")
	}
	s.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: DefaultFieldOwner, Operation: metav1.ManagedFieldsOperationUpdate}}
	if Owned(s, nil, DefaultFieldOwner) {
		t.Fatal("an Update entry counts as an apply")
	}
	s.ManagedFields = append(s.ManagedFields, metav1.ManagedFieldsEntry{Manager: DefaultFieldOwner, Operation: metav1.ManagedFieldsOperationApply})
	if !Owned(s, nil, DefaultFieldOwner) || Owned(s, nil, "someone-else") {
		t.Fatal("apply entry misjudged")
	}
}

// TestCurrent: a Secret our apply already brought to exactly the delivery
// needs no apply; anything else the apply would change, or might remove
// (an extra key, label or annotation a previous apply may have set), sends
// it.
func TestCurrent(t *testing.T) {
	want := Secret{Namespace: "ns", Name: "appcred-credentials", Owner: owner,
		Data:   map[string][]byte{"application_credential_id": []byte("id"), "application_credential_secret": []byte("s")},
		Labels: map[string]string{"c5c3.io/keystoneapplicationcredential-name": "appcred"}}
	ours := func() *corev1.Secret {
		return &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "appcred-credentials",
				Labels:          map[string]string{"c5c3.io/keystoneapplicationcredential-name": "appcred"},
				OwnerReferences: []metav1.OwnerReference{controllerRef(*owner)},
				Finalizers:      []string{"k-orc"},
				ManagedFields: []metav1.ManagedFieldsEntry{
					{Manager: "kube-controller-manager", Operation: metav1.ManagedFieldsOperationUpdate},
					{Manager: DefaultFieldOwner, Operation: metav1.ManagedFieldsOperationApply}}},
			Type: corev1.SecretTypeOpaque,
			Data: map[string][]byte{"application_credential_id": []byte("id"), "application_credential_secret": []byte("s")}}
	}
	if !Current(ours(), want, DefaultFieldOwner) {
		t.Fatal("a Secret holding exactly the delivery is not current")
	}
	noOwner := want
	noOwner.Owner = nil
	bare := ours()
	bare.OwnerReferences = nil
	if !Current(bare, noOwner, DefaultFieldOwner) {
		t.Error("a delivery without owner on a Secret without owner references is not current")
	}
	for name, change := range map[string]func(*corev1.Secret){
		"edited value":       func(s *corev1.Secret) { s.Data["application_credential_secret"] = []byte("edited") },
		"deleted key":        func(s *corev1.Secret) { delete(s.Data, "application_credential_id") },
		"foreign key":        func(s *corev1.Secret) { s.Data["extra"] = []byte("x") },
		"string data":        func(s *corev1.Secret) { s.StringData = map[string]string{"extra": "x"} },
		"edited label":       func(s *corev1.Secret) { s.Labels["c5c3.io/keystoneapplicationcredential-name"] = "other" },
		"extra label":        func(s *corev1.Secret) { s.Labels["team"] = "a" },
		"annotation":         func(s *corev1.Secret) { s.Annotations = map[string]string{"note": "x"} },
		"no owner reference": func(s *corev1.Secret) { s.OwnerReferences = nil },
		"second owner": func(s *corev1.Secret) {
			s.OwnerReferences = append(s.OwnerReferences, metav1.OwnerReference{Name: "x"})
		},
		"not blocking":         func(s *corev1.Secret) { s.OwnerReferences[0].BlockOwnerDeletion = nil },
		"other owner uid":      func(s *corev1.Secret) { s.OwnerReferences[0].UID = "uid-2" },
		"created, not applied": func(s *corev1.Secret) { s.ManagedFields = s.ManagedFields[:1] },
		"applied status only":  func(s *corev1.Secret) { s.ManagedFields[1].Subresource = "status" },
	} {
		s := ours()
		change(s)
		if Current(s, want, DefaultFieldOwner) {
			t.Errorf("%s: current, so the apply would be left out", name)
		}
	}
	if Current(ours(), want, "someone-else") {
		t.Error("current under a field owner that never applied it")
	}
	if Current(ours(), noOwner, DefaultFieldOwner) {
		t.Error("a delivery without owner is current on a Secret carrying an owner reference")
	}
}

// TestDeliverLeavesCurrentSecretAlone: a second delivery of the same data
// sends no write; a changed value is applied again.
func TestDeliverLeavesCurrentSecretAlone(t *testing.T) {
	sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "appcred-credentials",
		OwnerReferences: []metav1.OwnerReference{controllerRef(*owner)},
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: DefaultFieldOwner, Operation: metav1.ManagedFieldsOperationApply,
			APIVersion: "v1", FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:data":{"f:k":{}}}`)}}}},
		Data: map[string][]byte{"k": []byte("v1")}}
	applies := 0
	c := fake.NewClientBuilder().WithReturnManagedFields().WithObjects(sec).WithInterceptorFuncs(interceptor.Funcs{
		Apply: func(context.Context, client.WithWatch, runtime.ApplyConfiguration, ...client.ApplyOption) error {
			applies++
			return nil
		},
	}).Build()
	ctx := context.Background()
	got, err := Deliver(ctx, c, "", Secret{Namespace: "ns", Name: "appcred-credentials", Owner: owner, Data: map[string][]byte{"k": []byte("v1")}})
	if err != nil || got != Unchanged || applies != 0 {
		t.Fatalf("delivering what the Secret holds: %s, %v, %d applies; want Unchanged and none", got, err, applies)
	}
	got, err = Deliver(ctx, c, "", Secret{Namespace: "ns", Name: "appcred-credentials", Owner: owner, Data: map[string][]byte{"k": []byte("v2")}})
	if err != nil || got != Applied || applies != 1 {
		t.Fatalf("delivering a new value: %s, %v, %d applies; want Applied and one", got, err, applies)
	}
}
