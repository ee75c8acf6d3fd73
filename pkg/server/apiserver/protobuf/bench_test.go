package protobuf

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// benchConfigMap is a ConfigMap of about 1.6 KB of stored JSON, with
// labels, an owner reference, managed fields and ten data keys.
var benchConfigMap = configMapJSON("demo", "12345", 10)

func BenchmarkEncodeObject(b *testing.B) {
	c := Default()
	b.Run("ConfigMap", func(b *testing.B) {
		b.SetBytes(int64(len(benchConfigMap)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.EncodeObject(configMapGVK, benchConfigMap); err != nil {
				b.Fatal(err)
			}
		}
	})
	// The part of the above that is decoding the stored JSON.
	b.Run("ConfigMap/json-decode-only", func(b *testing.B) {
		b.SetBytes(int64(len(benchConfigMap)))
		b.ReportAllocs()
		for b.Loop() {
			var cm corev1.ConfigMap
			if err := utiljson.Unmarshal(benchConfigMap, &cm); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Bookmark", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.EncodeObject(configMapGVK, []byte(bookmarkJSON)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkEncodeList(b *testing.B) {
	c := Default()
	for _, n := range []int{1000} {
		items := make([][]byte, n)
		size := 0
		for i := range items {
			items[i] = configMapJSON(fmt.Sprintf("cm-%04d", i), fmt.Sprint(1000+i), 10)
			size += len(items[i])
		}
		remaining := int64(5000)
		meta := metav1.ListMeta{ResourceVersion: "2000", Continue: "eyJydiI6MjAwMH0", RemainingItemCount: &remaining}
		b.Run(fmt.Sprintf("ConfigMaps=%d", n), func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.EncodeList(configMapListGVK, meta, items); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkWatchFrame(b *testing.B) {
	c := Default()
	obj, err := c.EncodeObject(configMapGVK, benchConfigMap)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(obj)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.WatchFrame("MODIFIED", obj); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeToJSON(b *testing.B) {
	c := Default()
	body, err := c.EncodeObject(configMapGVK, benchConfigMap)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := c.DecodeToJSON(body); err != nil {
			b.Fatal(err)
		}
	}
}
