package main

import (
	"encoding/json"
	"testing"
)

func TestNewsListSerializes(t *testing.T) {
	payload, err := json.Marshal(newsList)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	var decoded []map[string]string
	if err := json.Unmarshal(payload, &decoded); err != nil {
		t.Fatalf("unmarshal: %v", err)
	}
	if len(decoded) != len(newsList) {
		t.Fatalf("got %d bulletins, want %d", len(decoded), len(newsList))
	}
	for i, item := range decoded {
		if item["Title"] == "" || item["Content"] == "" {
			t.Errorf("bulletin %d lacks Title or Content: %v", i, item)
		}
	}
}

func TestNewsTitlesAreUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, n := range newsList {
		if seen[n.Title] {
			t.Errorf("duplicate title %q", n.Title)
		}
		seen[n.Title] = true
	}
}
