package main

import (
	"encoding/json"
	"testing"
)

func TestNewsListSerializes(t *testing.T) {
	body, err := json.Marshal(newsList)
	if err != nil {
		t.Fatal(err)
	}
	var out []News
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatal(err)
	}
	if len(out) != len(newsList) || out[0].Title == "" {
		t.Fatalf("unexpected news list %v", out)
	}
}
