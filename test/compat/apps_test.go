package compat_test

import (
	"errors"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
)

// webTemplate is a pod template labelled app=web with one container.
func webTemplate() corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1.25"}}},
	}
}

func webSelector() *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
}

// TestAppsClientGo drives the apps/v1 kinds with client-go's typed
// clients, over JSON and protobuf: each kind is created and read back
// with kube's defaults, refused with kube's 422s, and the workloads are
// scaled through /scale. Expected values are the oracle's
// (kube-apiserver v1.33), recorded by hand.
func TestAppsClientGo(t *testing.T) {
	srv := apiservertest.Start(t)
	for _, contentType := range []string{"application/json", "application/vnd.kubernetes.protobuf"} {
		t.Run(contentType, func(t *testing.T) {
			cfg := *srv.Config
			cfg.ContentType = contentType
			cs, err := kubernetes.NewForConfig(&cfg)
			if err != nil {
				t.Fatal(err)
			}
			ns := createNamespace(t, cs, "apps-"+strings.ReplaceAll(strings.TrimPrefix(contentType, "application/"), ".", "-"))
			apps := cs.AppsV1()
			ctx := t.Context()

			t.Run("defaults", func(t *testing.T) {
				_, err := apps.Deployments(ns).Create(ctx, &appsv1.Deployment{
					ObjectMeta: metav1.ObjectMeta{Name: "web"},
					Spec:       appsv1.DeploymentSpec{Selector: webSelector(), Template: webTemplate()},
				}, metav1.CreateOptions{})
				if err != nil {
					t.Fatal(err)
				}
				rs, err := apps.ReplicaSets(ns).Create(ctx, &appsv1.ReplicaSet{
					ObjectMeta: metav1.ObjectMeta{Name: "web"},
					Spec:       appsv1.ReplicaSetSpec{Selector: webSelector(), Template: webTemplate()},
				}, metav1.CreateOptions{})
				if err != nil {
					t.Fatal(err)
				}
				sts, err := apps.StatefulSets(ns).Create(ctx, &appsv1.StatefulSet{
					ObjectMeta: metav1.ObjectMeta{Name: "web"},
					Spec:       appsv1.StatefulSetSpec{Selector: webSelector(), Template: webTemplate(), ServiceName: "web"},
				}, metav1.CreateOptions{})
				if err != nil {
					t.Fatal(err)
				}
				ds, err := apps.DaemonSets(ns).Create(ctx, &appsv1.DaemonSet{
					ObjectMeta: metav1.ObjectMeta{Name: "web"},
					Spec:       appsv1.DaemonSetSpec{Selector: webSelector(), Template: webTemplate()},
				}, metav1.CreateOptions{})
				if err != nil {
					t.Fatal(err)
				}
				_, err = apps.ControllerRevisions(ns).Create(ctx, &appsv1.ControllerRevision{
					ObjectMeta: metav1.ObjectMeta{Name: "web-1"},
					Data:       runtime.RawExtension{Raw: []byte(`{"spec":{"template":{}}}`)},
					Revision:   1,
				}, metav1.CreateOptions{})
				if err != nil {
					t.Fatal(err)
				}
				// Read back what was stored, not what the create answered.
				d, err := apps.Deployments(ns).Get(ctx, "web", metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				cr, err := apps.ControllerRevisions(ns).Get(ctx, "web-1", metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				tests := []struct {
					name      string
					got, want any
				}{
					{"deployment generation", d.Generation, int64(1)},
					{"deployment replicas", *d.Spec.Replicas, int32(1)},
					{"deployment strategy", d.Spec.Strategy.Type, appsv1.RollingUpdateDeploymentStrategyType},
					{"deployment maxSurge", *d.Spec.Strategy.RollingUpdate.MaxSurge, intstr.FromString("25%")},
					{"deployment maxUnavailable", *d.Spec.Strategy.RollingUpdate.MaxUnavailable, intstr.FromString("25%")},
					{"deployment revisionHistoryLimit", *d.Spec.RevisionHistoryLimit, int32(10)},
					{"deployment progressDeadlineSeconds", *d.Spec.ProgressDeadlineSeconds, int32(600)},
					{"deployment template restartPolicy", d.Spec.Template.Spec.RestartPolicy, corev1.RestartPolicyAlways},
					{"deployment template pull policy", d.Spec.Template.Spec.Containers[0].ImagePullPolicy, corev1.PullIfNotPresent},
					{"deployment status", d.Status, appsv1.DeploymentStatus{}},
					{"replicaset replicas", *rs.Spec.Replicas, int32(1)},
					{"replicaset generation", rs.Generation, int64(1)},
					{"statefulset policy", sts.Spec.PodManagementPolicy, appsv1.OrderedReadyPodManagement},
					{"statefulset partition", *sts.Spec.UpdateStrategy.RollingUpdate.Partition, int32(0)},
					{"statefulset retention", *sts.Spec.PersistentVolumeClaimRetentionPolicy, appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{
						WhenDeleted: appsv1.RetainPersistentVolumeClaimRetentionPolicyType, WhenScaled: appsv1.RetainPersistentVolumeClaimRetentionPolicyType}},
					{"daemonset maxUnavailable", *ds.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable, intstr.FromInt32(1)},
					{"daemonset maxSurge", *ds.Spec.UpdateStrategy.RollingUpdate.MaxSurge, intstr.FromInt32(0)},
					{"daemonset template generation", ds.Annotations[appsv1.DeprecatedTemplateGeneration], "1"},
					{"controllerrevision data", string(cr.Data.Raw), `{"spec":{"template":{}}}`},
					{"controllerrevision generation", cr.Generation, int64(0)},
				}
				for _, tt := range tests {
					if !equalValues(tt.got, tt.want) {
						t.Errorf("%s = %#v, want %#v", tt.name, tt.got, tt.want)
					}
				}
			})

			t.Run("invalid", func(t *testing.T) {
				bad := webTemplate()
				bad.Labels = map[string]string{"app": "other"}
				_, err := apps.Deployments(ns).Create(ctx, &appsv1.Deployment{
					ObjectMeta: metav1.ObjectMeta{Name: "mismatch"},
					Spec:       appsv1.DeploymentSpec{Selector: webSelector(), Template: bad},
				}, metav1.CreateOptions{})
				wantCause(t, err, "spec.template.metadata.labels", "Invalid value: map[string]string{\"app\":\"other\"}: `selector` does not match template `labels`")

				d, err := apps.Deployments(ns).Get(ctx, "web", metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				d.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "other"}}
				d.Spec.Template.Labels = map[string]string{"app": "other"}
				_, err = apps.Deployments(ns).Update(ctx, d, metav1.UpdateOptions{})
				wantCause(t, err, "spec.selector", `Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"other"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable`)

				rs, err := apps.ReplicaSets(ns).Get(ctx, "web", metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				rs.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyNever
				_, err = apps.ReplicaSets(ns).Update(ctx, rs, metav1.UpdateOptions{})
				wantCause(t, err, "spec.template.spec.restartPolicy", `Unsupported value: "Never": supported values: "Always"`)

				sts, err := apps.StatefulSets(ns).Get(ctx, "web", metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				sts.Spec.ServiceName = "other"
				_, err = apps.StatefulSets(ns).Update(ctx, sts, metav1.UpdateOptions{})
				wantCause(t, err, "spec", "Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden")
			})

			t.Run("scale", func(t *testing.T) {
				get := metav1.GetOptions{}
				upd := metav1.UpdateOptions{}
				for _, sc := range []struct {
					kind     string
					get      func() (*autoscalingv1.Scale, error)
					update   func(*autoscalingv1.Scale) (*autoscalingv1.Scale, error)
					replicas func() (int32, int64, error)
				}{
					{"Deployment",
						func() (*autoscalingv1.Scale, error) { return apps.Deployments(ns).GetScale(ctx, "web", get) },
						func(s *autoscalingv1.Scale) (*autoscalingv1.Scale, error) {
							return apps.Deployments(ns).UpdateScale(ctx, "web", s, upd)
						},
						func() (int32, int64, error) {
							o, err := apps.Deployments(ns).Get(ctx, "web", get)
							if err != nil {
								return 0, 0, err
							}
							return *o.Spec.Replicas, o.Generation, nil
						}},
					{"ReplicaSet",
						func() (*autoscalingv1.Scale, error) { return apps.ReplicaSets(ns).GetScale(ctx, "web", get) },
						func(s *autoscalingv1.Scale) (*autoscalingv1.Scale, error) {
							return apps.ReplicaSets(ns).UpdateScale(ctx, "web", s, upd)
						},
						func() (int32, int64, error) {
							o, err := apps.ReplicaSets(ns).Get(ctx, "web", get)
							if err != nil {
								return 0, 0, err
							}
							return *o.Spec.Replicas, o.Generation, nil
						}},
					{"StatefulSet",
						func() (*autoscalingv1.Scale, error) { return apps.StatefulSets(ns).GetScale(ctx, "web", get) },
						func(s *autoscalingv1.Scale) (*autoscalingv1.Scale, error) {
							return apps.StatefulSets(ns).UpdateScale(ctx, "web", s, upd)
						},
						func() (int32, int64, error) {
							o, err := apps.StatefulSets(ns).Get(ctx, "web", get)
							if err != nil {
								return 0, 0, err
							}
							return *o.Spec.Replicas, o.Generation, nil
						}},
				} {
					got, err := sc.get()
					if err != nil {
						t.Fatalf("%s: get scale: %v", sc.kind, err)
					}
					if got.Spec.Replicas != 1 || got.Status.Replicas != 0 || got.Status.Selector != "app=web" || got.Name != "web" || got.Namespace != ns {
						t.Errorf("%s: scale %+v, want 1 desired, 0 observed, selector app=web", sc.kind, got)
					}
					got.Spec.Replicas = 4
					if _, err := sc.update(got); err != nil {
						t.Fatalf("%s: update scale: %v", sc.kind, err)
					}
					n, gen, err := sc.replicas()
					if err != nil {
						t.Fatal(err)
					}
					if n != 4 || gen < 2 {
						t.Errorf("%s: after scaling, replicas %d generation %d, want 4 and a new generation", sc.kind, n, gen)
					}
					got.Spec.Replicas = -1
					got.ResourceVersion = ""
					_, err = sc.update(got)
					wantCause(t, err, "spec.replicas", "Invalid value: -1: must be greater than or equal to 0")
				}
				if _, err := cs.AppsV1().RESTClient().Get().Namespace(ns).Resource("daemonsets").Name("web").SubResource("scale").DoRaw(ctx); !apierrors.IsNotFound(err) {
					t.Errorf("daemonsets/scale: %v, want 404 (kube serves none)", err)
				}
			})

			t.Run("status", func(t *testing.T) {
				d, err := apps.Deployments(ns).Get(ctx, "web", metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				gen := d.Generation
				d.Spec.Replicas = ptr.To[int32](9)
				d.Status = appsv1.DeploymentStatus{ObservedGeneration: gen, Replicas: 4, ReadyReplicas: 2, AvailableReplicas: 2}
				got, err := apps.Deployments(ns).UpdateStatus(ctx, d, metav1.UpdateOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if *got.Spec.Replicas != 4 || got.Status.ReadyReplicas != 2 || got.Generation != gen {
					t.Errorf("after a status write: replicas %d, ready %d, generation %d; want the spec kept (4), the status written (2), generation %d",
						*got.Spec.Replicas, got.Status.ReadyReplicas, got.Generation, gen)
				}
				got.Status.ReadyReplicas = 5
				_, err = apps.Deployments(ns).UpdateStatus(ctx, got, metav1.UpdateOptions{})
				wantCause(t, err, "status.readyReplicas", "Invalid value: 5: cannot be greater than status.replicas")
			})
		})
	}
}

// wantCause fails unless err is a 422 with a cause at path whose
// message is msg.
func wantCause(t *testing.T, err error, path, msg string) {
	t.Helper()
	var se *apierrors.StatusError
	if !errors.As(err, &se) || !apierrors.IsInvalid(err) {
		t.Fatalf("error %v, want a 422 Invalid", err)
	}
	for _, c := range se.ErrStatus.Details.Causes {
		if c.Field == path && c.Message == msg {
			return
		}
	}
	t.Errorf("causes %+v, want %s: %s", se.ErrStatus.Details.Causes, path, msg)
}

func equalValues(a, b any) bool {
	switch a := a.(type) {
	case appsv1.DeploymentStatus:
		bs := b.(appsv1.DeploymentStatus)
		return a.ObservedGeneration == bs.ObservedGeneration && a.Replicas == bs.Replicas && len(a.Conditions) == len(bs.Conditions)
	case appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy:
		return a == b.(appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy)
	case intstr.IntOrString:
		return a == b.(intstr.IntOrString)
	}
	return a == b
}
