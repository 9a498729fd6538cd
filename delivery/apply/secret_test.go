package apply

import (
	"context"
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
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
