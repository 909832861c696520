/*
 * coll_output.c - tpu-collectives' results: the fit of each series, the
 * CSV, the summary and the gnuplot script (collectives.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "collectives.h"

/* ---- output ------------------------------------------------------------------------------- */

typedef struct fit {
    double w;               /* bytes per cycle per link direction, from the largest points */
    double lat;             /* cycles per hop, from the smallest point */
    double knee;            /* shard bytes where the two terms are equal */
    double big;             /* cycles / model bandwidth term at the largest shard */
    int n;
} fit;

static fit fit_series(const point *pts, size_t np, int coll, int t)
{
    fit f = { 0 };
    const point *lo = NULL, *hi1 = NULL, *hi2 = NULL;
    for (size_t i = 0; i < np; i++) {
        const point *p = &pts[i];
        if (p->coll != coll || p->topo != t || !p->ok)
            continue;
        f.n++;
        if (!lo || p->shard < lo->shard)
            lo = p;
        if (!hi1 || p->shard > hi1->shard)
            hi2 = hi1, hi1 = p;
        else if (!hi2 || p->shard > hi2->shard)
            hi2 = p;
    }
    if (f.n < 2 || !hi2 || hi1->link_bytes <= hi2->link_bytes)
        return f;
    f.w = (hi1->link_bytes - hi2->link_bytes) / ((double)hi1->cycles - (double)hi2->cycles);
    f.lat = lo->hops ? (double)lo->cycles / lo->hops : 0;
    /* link bytes grow linearly with the shard: knee where bytes/w = hops * lat */
    double per_byte = hi1->link_bytes / (double)hi1->shard;
    f.knee = f.w > 0 ? hi1->hops * f.lat * f.w / per_byte : 0;
    f.big = hi1->cycles / hi1->bw;
    return f;
}

int coll_write_outputs(const options *o, const tpu_config *cfg, const point *pts, size_t np,
                         int interrupted, char *paths, size_t pathlen)
{
    char csv[1200], txt[1200], gp[1200];
    snprintf(csv, sizeof csv, "%s/collectives-%s.csv", o->out, cfg->name);
    snprintf(txt, sizeof txt, "%s/collectives-%s.txt", o->out, cfg->name);
    snprintf(gp, sizeof gp, "%s/collectives-%s.gp", o->out, cfg->name);
    FILE *f = fopen(csv, "w");
    if (!f) {
        fprintf(stderr, "tpu-collectives: error: cannot write %s: %s\n", csv, strerror(errno));
        return -1;
    }
    double hz = cfg->clock_hz;
    fprintf(f, "collective,topology,cores,shard_bytes,gathered_bytes,cycles,us,model_bw_cycles,"
            "model_latency_cycles,hops,link_bytes,cycles_over_model_bw\n");
    for (size_t i = 0; i < np; i++) {
        const point *p = &pts[i];
        const topo *t = &o->topos[p->topo];
        if (!p->ok)
            continue;
        unsigned k = coll_group(t, o->axes);
        fprintf(f, "%s,%s,%u,%llu,%llu,%llu,%.4f,%.1f,%.1f,%u,%.0f,%.4f\n", coll_name[p->coll],
                t->name, k, (unsigned long long)p->shard,
                (unsigned long long)((k - 1) * p->shard), (unsigned long long)p->cycles,
                p->cycles / hz * 1e6, p->bw, p->lat, p->hops, p->link_bytes, p->cycles / p->bw);
    }
    fclose(f);

    /* the summary: one line per collective and topology */
    f = fopen(txt, "w");
    if (!f) {
        fprintf(stderr, "tpu-collectives: error: cannot write %s: %s\n", txt, strerror(errno));
        return -1;
    }
    double w = cfg->ici_bw / hz, lat = (double)cfg->ici_latency;
    FILE *outs[2] = { f, stdout };
    for (int k = 0; k < 2; k++) {
        FILE *g = outs[k];
        if (!g)
            continue;
        fprintf(g, "# tpu-collectives on %s%s: ICI %.3g B/s per link and direction (%.2f B/cycle), "
                "%llu cycles (%.3g us) per hop\n", cfg->name, interrupted ? " (interrupted)" : "",
                cfg->ici_bw, w, (unsigned long long)cfg->ici_latency, lat / hz * 1e6);
        fprintf(g, "# %-18s %-9s %6s %12s %10s %12s %11s %14s\n", "collective", "topology",
                "points", "link B/s", "(model)", "us per hop", "knee shard", "largest: x bw");
        for (int c = 0; c < NCOLL; c++)
            for (unsigned t = 0; t < o->ntopos; t++) {
                fit ft = fit_series(pts, np, c, (int)t);
                if (ft.n < 2)
                    continue;
                fprintf(g, "  %-18s %-9s %6d %12.3g %10.3g %12.3f %9.1f kB %13.3f\n",
                        coll_name[c], o->topos[t].name, ft.n, ft.w * hz, cfg->ici_bw,
                        ft.lat / hz * 1e6, ft.knee / 1000, ft.big);
            }
        /* a torus3d: the largest point against the book's several-axes-at-once time */
        int head = 0;
        for (int c = 0; c < NCOLL; c++)
            for (unsigned t = 0; t < o->ntopos; t++) {
                const point *big = NULL;
                for (size_t i = 0; i < np; i++)
                    if (pts[i].ok && pts[i].coll == c && pts[i].topo == (int)t &&
                        (!big || pts[i].shard > big->shard))
                        big = &pts[i];
                double book = big ? coll_book_cycles(&o->topos[t], c, big->shard, o->axes, w,
                                                     lat) : 0;
                if (book <= 0)
                    continue;
                if (!head++ && o->once)
                    fprintf(g, "# %-18s %-13s %12s %12s %12s %9s  (torus3d, the three axes "
                            "at once; the book: all axes at once)\n", "collective",
                            "topology", "shard B", "measured us", "book us", "measured/book");
                else if (head == 1)
                    fprintf(g, "# %-18s %-13s %12s %12s %12s %9s  (torus3d over %u axes, one "
                            "after the other; the book: all axes at once)\n", "collective",
                            "topology", "shard B", "measured us", "book us", "measured/book",
                            o->axes);
                fprintf(g, "  %-18s %-13s %12llu %12.2f %12.2f %9.2fx\n", coll_name[c],
                        o->topos[t].name, (unsigned long long)big->shard,
                        big->cycles / hz * 1e6, book / hz * 1e6, big->cycles / book);
            }
        fprintf(g, "# knee: the shard below which hops x latency outweighs the bytes (the book: "
                "a buffer under %.3g B/s x %.3g us = %.3g kB is latency-bound; a ring sends "
                "half a shard each way)\n", cfg->ici_bw, lat / hz * 1e6, cfg->ici_bw * lat / hz / 1000);
    }
    fclose(f);

    /* the gnuplot script: per collective, time against shard, points and model lines */
    f = fopen(gp, "w");
    if (!f) {
        fprintf(stderr, "tpu-collectives: error: cannot write %s: %s\n", gp, strerror(errno));
        return -1;
    }
    fprintf(f, "# generated by tpu-collectives for %s; run: gnuplot %s\n", cfg->name, gp);
    fprintf(f, "set datafile separator ','\nset logscale xy\nset key left top\nset grid\n"
            "set xlabel 'shard (bytes per core)'\nset ylabel 'time (us)'\n"
            "set yrange [%g:*]\n", (double)cfg->ici_latency / hz * 1e6 / 2);
    for (int c = 0; c < NCOLL; c++) {
        if (!o->colls[c])
            continue;
        for (int fmt = 0; fmt < 2; fmt++) {
            fprintf(f, "set terminal %s size 900,600\nset output '%s/collectives-%s-%s.%s'\n",
                    fmt ? "svg" : "pngcairo", o->img, cfg->name, coll_name[c],
                    fmt ? "svg" : "png");
            fprintf(f, "set title '%s on %s: measured (points), bandwidth term (dashed), hops x "
                    "latency (dotted)'\nplot ", coll_title[c], cfg->name);
            int first = 1;
            for (unsigned t = 0; t < o->ntopos; t++) {
                if (!coll_runs_on(c, &o->topos[t]))
                    continue;
                const char *tn = o->topos[t].name;
                fprintf(f, "%s'%s' using (strcol(1) eq '%s' && strcol(2) eq '%s' ? $4 : 1/0):7 "
                        "with linespoints lc %u pt 7 title '%s', "
                        "'' using (strcol(1) eq '%s' && strcol(2) eq '%s' ? $4 : 1/0):($8/%.6g) "
                        "with lines dt 2 lc %u notitle, "
                        "'' using (strcol(1) eq '%s' && strcol(2) eq '%s' ? $4 : 1/0):($9/%.6g) "
                        "with lines dt 3 lc %u notitle",
                        first ? "" : ", \\\n     ", csv, coll_name[c], tn, t + 1, tn,
                        coll_name[c], tn, hz / 1e6, t + 1, coll_name[c], tn, hz / 1e6, t + 1);
                first = 0;
                /* a both-axes collective next to the one axis after the other */
                if (coll_one_axis_of(c) >= 0 && o->colls[coll_one_axis_of(c)])
                    fprintf(f, ", \\\n     '%s' using (strcol(1) eq '%s' && strcol(2) eq '%s' ? $4 : "
                            "1/0):7 with linespoints lc %u pt 6 dt 4 title '%s, one axis after "
                            "the other'", csv, coll_name[coll_one_axis_of(c)], tn, t + 1, tn);
            }
            fprintf(f, "\n");
        }
    }
    fclose(f);
    snprintf(paths, pathlen, "%s, %s, %s", csv, txt, gp);
    return 0;
}
