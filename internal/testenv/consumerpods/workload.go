package consumerpods

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/delivery/cloudsyaml"
	"github.com/c5c3/orderhub/internal/testenv"
)

// Image is the reference authloop is imported under on the node.
const Image = "localhost/orderhub/authloop:test"

// authloopPackage is built by ImportAuthloop from anywhere in the module.
const authloopPackage = "github.com/c5c3/orderhub/internal/testenv/consumerpods/authloop"

// ImportAuthloop builds authloop static and imports it into the node's
// containerd as Image. Errors: the build, the image or the import failed.
func ImportAuthloop(ctx context.Context, stack *testenv.Stack) error {
	work, err := os.MkdirTemp("", "authloop-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(work) }()
	bin := filepath.Join(work, "authloop")
	build := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", bin, authloopPackage)
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("build authloop: %w: %s", err, out)
	}
	tarball := filepath.Join(work, "authloop.tar")
	if err := stack.BuildImage(ctx, Image, tarball, map[string]string{"authloop": bin}, []string{"/authloop"}); err != nil {
		return err
	}
	return stack.Node.ImportImage(ctx, tarball)
}

// Workload is one consumer Deployment.
type Workload struct {
	Namespace, Name string
	// Secret is the delivered Secret mounted at /etc/openstack; Cloud the
	// clouds.yaml entry (OS_CLOUD).
	Secret, Cloud string
	// SinkURL is Sink.URL; Interval the period of token requests.
	SinkURL  string
	Interval time.Duration
	Replicas int32
}

// Deployment runs authloop in w.Replicas on the host network (the stack's
// Keystone and the sink bind loopback), opted in to rollouts
// (docs/reference/consumers.md), labelled app=w.Name, with w.Secret
// mounted; a pod is ready after its first token.
func Deployment(w Workload) *appsv1.Deployment {
	labels := map[string]string{"app": w.Name}
	c := corev1.Container{Name: "authloop", Image: Image, ImagePullPolicy: corev1.PullNever,
		Env: []corev1.EnvVar{{Name: "OS_CLIENT_CONFIG_FILE", Value: "/etc/openstack/" + cloudsyaml.Key}, {Name: "OS_CLOUD", Value: w.Cloud},
			{Name: "AUTHLOOP_SINK", Value: w.SinkURL}, {Name: "AUTHLOOP_INTERVAL", Value: w.Interval.String()},
			{Name: "AUTHLOOP_READY", Value: "/run/authloop/ready"},
			{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}}},
		VolumeMounts: []corev1.VolumeMount{{Name: "creds", MountPath: "/etc/openstack", ReadOnly: true}, {Name: "run", MountPath: "/run/authloop"}},
		ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"/authloop", "probe"}}},
			PeriodSeconds: 1},
		SecurityContext: &corev1.SecurityContext{RunAsUser: ptr.To[int64](65532), RunAsNonRoot: ptr.To(true),
			AllowPrivilegeEscalation: ptr.To(false), ReadOnlyRootFilesystem: ptr.To(true),
			Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}}}
	return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: w.Namespace, Name: w.Name,
		Annotations: map[string]string{c5c3v1alpha1.AnnotationRolloutOnCredentialChange: "true"}},
		Spec: appsv1.DeploymentSpec{Replicas: ptr.To(w.Replicas), Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{HostNetwork: true, AutomountServiceAccountToken: ptr.To(false),
					TerminationGracePeriodSeconds: ptr.To[int64](10), Containers: []corev1.Container{c},
					Volumes: []corev1.Volume{{Name: "creds", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
						SecretName: w.Secret}}},
						{Name: "run", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}}}}}
}

// Cloud is the name of the one cloud of the clouds.yaml in a delivered
// Secret's data. Errors: no clouds.yaml, or not exactly one cloud.
func Cloud(data map[string][]byte) (string, error) {
	name, _, err := oneCloud(data)
	return name, err
}

// Credential is what authloop reports having loaded from the clouds.yaml in
// a delivered Secret's data: the application credential's id, else
// PasswordCredential of the password. Errors as Cloud's.
func Credential(data map[string][]byte) (string, error) {
	_, c, err := oneCloud(data)
	if err != nil {
		return "", err
	}
	a := cloudsyaml.AuthOf(c)
	if a.ApplicationCredentialID != "" {
		return a.ApplicationCredentialID, nil
	}
	return PasswordCredential(a.Password), nil
}

// PasswordCredential is what authloop reports for a password it loaded:
// "password:" and the first 12 hex digits of its SHA-256 (authloop's
// credential, which imports nothing of the module).
func PasswordCredential(password string) string {
	sum := sha256.Sum256([]byte(password))
	return "password:" + hex.EncodeToString(sum[:])[:12]
}

func oneCloud(data map[string][]byte) (string, cloudsyaml.Cloud, error) {
	var f cloudsyaml.File
	if err := yaml.Unmarshal(data[cloudsyaml.Key], &f); err != nil {
		return "", cloudsyaml.Cloud{}, fmt.Errorf("delivered clouds.yaml: %w", err)
	}
	if len(f.Clouds) != 1 {
		return "", cloudsyaml.Cloud{}, fmt.Errorf("delivered clouds.yaml has %d clouds, want 1", len(f.Clouds))
	}
	for name, c := range f.Clouds {
		return name, c, nil
	}
	return "", cloudsyaml.Cloud{}, nil
}
