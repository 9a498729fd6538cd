//go:build integration

package image

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/c5c3/orderhub/internal/testenv"
)

// runOnNode starts a stack with the local node, imports the tarball into
// its containerd (the node takes its own platform from the index) and runs
// `orderhub --version` from ref in a pod that must run as a non-root user
// (the kubelet checks the image's numeric user), waiting until it succeeded
// and printed the version.
func runOnNode(t *testing.T, tarball, ref string) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	st, err := testenv.Start(ctx, testenv.Options{Node: true, NodeWait: 20 * time.Minute, Logf: t.Logf})
	if err != nil {
		t.Fatalf("start a stack with a node: %v", err)
	}
	t.Cleanup(func() { _ = st.Stop() })
	if err := st.Node.ImportIndex(ctx, tarball, repository); err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(st.Kube.Config)
	if err != nil {
		t.Fatal(err)
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "orderhub-version", Namespace: "default"},
		Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, AutomountServiceAccountToken: ptr.To(false),
			Containers: []corev1.Container{{Name: "orderhub", Image: ref, ImagePullPolicy: corev1.PullNever,
				Args: []string{"--version"},
				SecurityContext: &corev1.SecurityContext{RunAsNonRoot: ptr.To(true), AllowPrivilegeEscalation: ptr.To(false),
					ReadOnlyRootFilesystem: ptr.To(true), Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}}}}}}
	if _, err := cs.CoreV1().Pods(pod.Namespace).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 5*time.Minute, "pod orderhub-version Succeeded", func() error {
		p, err := cs.CoreV1().Pods(pod.Namespace).Get(ctx, pod.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if p.Status.Phase == corev1.PodFailed {
			t.Fatalf("pod failed: %+v", p.Status)
		}
		if p.Status.Phase != corev1.PodSucceeded {
			return fmt.Errorf("phase %s, containers %+v", p.Status.Phase, p.Status.ContainerStatuses)
		}
		return nil
	})
	logs, err := cs.CoreV1().Pods(pod.Namespace).GetLogs(pod.Name, &corev1.PodLogOptions{}).Do(ctx).Raw()
	if err != nil || !strings.Contains(string(logs), version) {
		t.Fatalf("orderhub --version printed %q (%v), want %s", logs, err, version)
	}
}
