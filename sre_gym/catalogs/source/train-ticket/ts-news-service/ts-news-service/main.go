// ts-news-service serves the short travel bulletins shown on the train-ticket front page.
package main

import (
	"encoding/json"
	"log"
	"net/http"

	"github.com/hoisie/web"
)

const listenAddr = "0.0.0.0:12862"

// News is one bulletin. The UI reads the capitalised JSON keys.
type News struct {
	Title   string `json:"Title"`
	Content string `json:"Content"`
}

var newsList = []News{
	{Title: "Ticket office hours", Content: "Counters at Nanjing South open at 06:00 from next week."},
	{Title: "Spring timetable", Content: "More D trains connect Hangzhou and Suzhou at weekends."},
	{Title: "Maintenance window", Content: "Booking and refunds are unavailable every night between 23:30 and 00:30."},
}

// hello answers GET /news-service/news with every bulletin as one JSON array.
func hello(ctx *web.Context) string {
	payload, err := json.Marshal(newsList)
	if err != nil {
		log.Printf("news: cannot encode bulletins: %v", err)
		ctx.Abort(http.StatusInternalServerError, "cannot encode news")
		return ""
	}
	ctx.ContentType("json")
	return string(payload)
}

func main() {
	web.Get("/news-service/news", hello)
	log.Printf("ts-news-service listening on %s", listenAddr)
	web.Run(listenAddr)
}
