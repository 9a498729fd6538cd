package testenv

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// MarkPodsReady plays the kubelet for a stack without a node (Options.Node
// off): every pod of namespace ns matching labels that is not being deleted
// is written Running with Ready and ContainersReady True through the status
// subresource, so kube-controller-manager counts it available and a rollout
// can complete. It returns the UIDs of those pods. No container runs: use
// Options.Node where the workload itself must run.
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
		uids = append(uids, p.UID)
		if p.Status.Phase == corev1.PodRunning {
			continue
		}
		now := metav1.Now()
		p.Status.Phase = corev1.PodRunning
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: now},
			{Type: corev1.ContainersReady, Status: corev1.ConditionTrue, LastTransitionTime: now}}
		if err := c.Status().Update(ctx, p); err != nil {
			return nil, fmt.Errorf("mark pod %s/%s ready: %w", ns, p.Name, err)
		}
	}
	return uids, nil
}
