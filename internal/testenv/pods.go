package testenv

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// MarkPodsReady plays the kubelet for a stack without a node (Options.Node
// off): every pod of namespace ns matching labels that is not being deleted
// is written Running with Ready and ContainersReady True through the status
// subresource, so kube-controller-manager counts it available and a rollout
// can complete. It returns the UIDs of those pods. No container runs: use
// Options.Node where the workload itself must run. A pod another writer changed
// meanwhile is read again and written (markReady).
func MarkPodsReady(ctx context.Context, c client.Client, ns string, labels map[string]string) ([]types.UID, error) {
	var pods corev1.PodList
	if err := c.List(ctx, &pods, client.InNamespace(ns), client.MatchingLabels(labels)); err != nil {
		return nil, err
	}
	var uids []types.UID
	for i := range pods.Items {
		p := &pods.Items[i]
		if !p.DeletionTimestamp.IsZero() {
			continue
		}
		live, err := markReady(ctx, c, client.ObjectKeyFromObject(p))
		if err != nil {
			return nil, fmt.Errorf("mark pod %s/%s ready: %w", ns, p.Name, err)
		}
		if live {
			uids = append(uids, p.UID)
		}
	}
	return uids, nil
}

// markReady writes the pod at key Running and Ready unless it already is,
// reading it afresh and trying again when another writer changed it since
// (a conflict), as a kubelet does. live is false when the pod is gone or
// being deleted by then.
func markReady(ctx context.Context, c client.Client, key client.ObjectKey) (live bool, err error) {
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		var p corev1.Pod
		if err := c.Get(ctx, key, &p); err != nil {
			return err
		}
		live = p.DeletionTimestamp.IsZero()
		if !live || p.Status.Phase == corev1.PodRunning {
			return nil
		}
		now := metav1.Now()
		p.Status.Phase = corev1.PodRunning
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: now},
			{Type: corev1.ContainersReady, Status: corev1.ConditionTrue, LastTransitionTime: now}}
		return c.Status().Update(ctx, &p)
	})
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	return live, err
}
