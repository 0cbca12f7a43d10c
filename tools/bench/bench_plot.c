/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * odma bench --plot FILE.svg: the sweep as an SVG line chart, written as text (no library):
 * copy size on a log x axis, GB/s on a linear y axis, one polyline per series, axis labels,
 * a legend, a title and a caption (lines split at '\n') saying where the figures come from.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"

#define W 900.0
#define H 520.0
#define LEFT 80.0
#define RIGHT 230.0 /* room for the legend */
#define TOP 60.0
#define BOTTOM 90.0
#define PLOT_W (W - LEFT - RIGHT)
#define PLOT_H (H - TOP - BOTTOM)

static const char *const colours[] = { "#1f77b4", "#d62728", "#2ca02c", "#9467bd",
	                               "#ff7f0e", "#8c564b", "#17becf", "#7f7f7f" };

/* Text for an XML text node or attribute: & < > " escaped. */
static void xml_text(FILE *f, const char *s)
{
	for (; *s; s++)
		switch (*s) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		default:
			if ((unsigned char)*s >= 0x20 || *s == '\t')
				fputc(*s, f);
		}
}

/* A round step giving about 5 ticks up to @max: 1, 2 or 5 times a power of ten. */
static double tick_step(double max)
{
	double raw = max / 5, p = pow(10, floor(log10(raw))), m = raw / p;

	return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

static double x_of(size_t size, size_t lo, size_t hi)
{
	double a = log2((double)lo), b = log2((double)hi);

	return LEFT + (b > a ? (log2((double)size) - a) / (b - a) : 0.5) * PLOT_W;
}

static double y_of(double gbps, double ymax)
{
	return TOP + PLOT_H - gbps / ymax * PLOT_H;
}

static void axes(FILE *f, const char *xlabel, const size_t *sizes, int n, double ymax)
{
	double step = tick_step(ymax);
	char label[32];

	fprintf(f, "<g font-size=\"12\" fill=\"#333\">\n");
	for (double v = 0; v <= ymax + step / 1000; v += step) {
		double y = y_of(v, ymax);

		fprintf(f,
		        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n"
		        "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n",
		        LEFT, y, LEFT + PLOT_W, y, LEFT - 8, y + 4, v);
	}
	for (int i = 0; i < n; i++) {
		double x = x_of(sizes[i], sizes[0], sizes[n - 1]);

		bench_fmt_size(sizes[i], label, sizeof(label));
		fprintf(f,
		        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>\n"
		        "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
		        x, TOP, x, TOP + PLOT_H, x, TOP + PLOT_H + 18, label);
	}
	fprintf(f,
	        "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
	        "stroke=\"#333\"/>\n"
	        "<text class=\"axis-label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
	        "font-size=\"14\">%s, bytes (log scale)</text>\n"
	        "<text class=\"axis-label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
	        "font-size=\"14\" transform=\"rotate(-90 %.1f %.1f)\">GB/s</text>\n</g>\n",
	        LEFT, TOP, PLOT_W, PLOT_H, LEFT + PLOT_W / 2, TOP + PLOT_H + 40, xlabel, LEFT - 55,
	        TOP + PLOT_H / 2, LEFT - 55, TOP + PLOT_H / 2);
}

static void series_line(FILE *f, const struct bench_plot_series *s, const char *colour,
                        const size_t *sizes, int n, double ymax)
{
	fprintf(f, "<polyline class=\"series\" data-series=\"");
	xml_text(f, s->name);
	fprintf(f, "\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s points=\"", colour,
	        s->dashed ? " stroke-dasharray=\"6 4\"" : "");
	for (int i = 0; i < n; i++)
		if (s->has[i])
			fprintf(f, "%.1f,%.1f ", x_of(sizes[i], sizes[0], sizes[n - 1]),
			        y_of(s->gbps[i], ymax));
	fprintf(f, "\"/>\n");
	for (int i = 0; i < n; i++)
		if (s->has[i])
			fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n",
			        x_of(sizes[i], sizes[0], sizes[n - 1]), y_of(s->gbps[i], ymax),
			        colour);
}

static void legend(FILE *f, const struct bench_plot_series *s, int ns)
{
	double x = LEFT + PLOT_W + 20;

	fprintf(f, "<g class=\"legend\" font-size=\"12\">\n");
	for (int k = 0; k < ns; k++) {
		double y = TOP + 10 + k * 22;
		const char *c = colours[k % (int)(sizeof(colours) / sizeof(colours[0]))];

		fprintf(f,
		        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
		        "stroke-width=\"2\"%s/>\n<text x=\"%.1f\" y=\"%.1f\">",
		        x, y, x + 24, y, c, s[k].dashed ? " stroke-dasharray=\"6 4\"" : "", x + 30,
		        y + 4);
		xml_text(f, s[k].name);
		fprintf(f, "</text>\n");
	}
	fprintf(f, "</g>\n");
}

/* The caption under the chart, one <text> per line of @caption (lines end with '\n'). */
static void caption_lines(FILE *f, const char *caption)
{
	char line[512];
	int n = 0, k = 0;

	for (const char *c = caption; *c; c++)
		n += *c == '\n';
	n += caption[0] != '\0' && caption[strlen(caption) - 1] != '\n';
	while (*caption && k < n) {
		size_t len = strcspn(caption, "\n");

		snprintf(line, sizeof(line), "%.*s", (int)len, caption);
		fprintf(f,
		        "<text class=\"caption\" x=\"%.1f\" y=\"%.1f\" font-size=\"11\" "
		        "fill=\"#555\">",
		        LEFT, H - 10 - 14 * (n - 1 - k));
		xml_text(f, line);
		fprintf(f, "</text>\n");
		caption += len + (caption[len] == '\n');
		k++;
	}
}

int bench_plot_write(FILE *f, const char *title, const char *xlabel, const char *caption,
                     const size_t *sizes, int n, const struct bench_plot_series *s, int ns)
{
	double ymax = 0;

	for (int k = 0; k < ns; k++)
		for (int i = 0; i < n; i++)
			if (s[k].has[i] && s[k].gbps[i] > ymax)
				ymax = s[k].gbps[i];
	ymax = ymax > 0 ? ymax * 1.08 : 1;
	ymax = ceil(ymax / tick_step(ymax)) * tick_step(ymax);
	fprintf(f,
	        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
	        "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\">\n"
	        "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
	        "<text class=\"title\" x=\"%.1f\" y=\"28\" font-size=\"16\">",
	        W, H, W, H, LEFT);
	xml_text(f, title);
	fprintf(f, "</text>\n");
	caption_lines(f, caption);
	axes(f, xlabel, sizes, n, ymax);
	for (int k = 0; k < ns; k++)
		series_line(f, &s[k], colours[k % (int)(sizeof(colours) / sizeof(colours[0]))],
		            sizes, n, ymax);
	legend(f, s, ns);
	fprintf(f, "</svg>\n");
	return ferror(f) ? -1 : 0;
}
