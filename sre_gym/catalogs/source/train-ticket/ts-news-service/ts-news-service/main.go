package main

import (
	"encoding/json"
	"log"
	"net/http"
	"time"

	"github.com/hoisie/web"
)

type News struct {
	Title   string `json:"Title"`
	Content string `json:"Content"`
}

var newsList = []News{
	{Title: "Travel announcement", Content: "Stations in Shanghai will open the new waiting hall on Monday."},
	{Title: "Holiday schedule", Content: "Additional G trains run between Beijing and Shanghai during the holidays."},
	{Title: "Service notice", Content: "Online ticket sales pause from 23:30 to 00:30 for maintenance."},
}

func hello(ctx *web.Context) string {
	ctx.SetHeader("Content-Type", "application/json", true)
	body, err := json.Marshal(newsList)
	if err != nil {
		ctx.Abort(http.StatusInternalServerError, err.Error())
		return ""
	}
	return string(body)
}

func main() {
	web.Config.StaticDir = "static"
	web.Get("/news-service/news", hello)
	log.Printf("news service starting at %s", time.Now().Format(time.RFC3339))
	web.Run("0.0.0.0:12862")
}
