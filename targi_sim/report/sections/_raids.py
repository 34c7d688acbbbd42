"""Section 4, raids: what each raid took and whether it changed the winner."""

from __future__ import annotations

import polars as pl

from .. import plots
from ..data import ReportData
from ..metrics import (
    drop_sums,
    with_rate,
)
from ..model import Section, Table, mark_low_n
from ..values import VpRates
from .common import headline_row, make_plot


def raids(d: ReportData, min_n: int, headline: list[dict], rates: VpRates) -> Section:
    """Payment mix, VP-equivalent losses, payer win rates and raid-decided games."""
    mix = d.raids(rates)
    mix = with_rate(mix, "share", "n", "raid_n", xx="n__xx", xn="n__xr")
    mix = with_rate(mix, "payer_wr", "points", "n")
    mix = mix.with_columns((pl.col("amount") / pl.col("n")).alias("amount_mean"),
                           (pl.col("vp_equivalent") / pl.col("n")).alias("vp_lost_mean"))
    mix = mark_low_n(drop_sums(mix), "n", min_n)

    per = []
    for raid, df in sorted(mix.group_by("raid"), key=lambda kv: kv[0]):
        by_kind = {r["paid"]: r for r in df.iter_rows(named=True)}
        n = int(df["n"].sum())
        row = {"raid": raid[0], "n": n, "vp_lost_mean": float(df["vp_equivalent"].sum()) / n}
        for kind in ("vp", "goods"):
            r = by_kind.get(kind) or {}
            row |= {f"wr_paid_{kind}": r.get("payer_wr"),
                    f"wr_paid_{kind}_lo": r.get("payer_wr_lo"),
                    f"wr_paid_{kind}_hi": r.get("payer_wr_hi"), f"n_paid_{kind}": r.get("n", 0)}
        per.append(row)
    per_raid = pl.DataFrame(per, schema={
        "raid": pl.Int64, "n": pl.Int64, "vp_lost_mean": pl.Float64,
        **{f"{c}_{kind}{b}": t for kind in ("vp", "goods")
           for c, b, t in (("wr_paid", "", pl.Float64), ("wr_paid", "_lo", pl.Float64),
                           ("wr_paid", "_hi", pl.Float64), ("n_paid", "", pl.Int64))}})
    per_raid = per_raid.with_columns(
        (pl.col("wr_paid_vp") - pl.col("wr_paid_goods")).alias("wr_vp_minus_goods"))
    per_raid = mark_low_n(per_raid, "n", min_n)

    sw = d.swing()
    sw = with_rate(sw, "flipped_exact_share", "flipped_exact", "decided")
    sw = with_rate(sw, "flipped_eq_share", "flipped_eq", "decided")
    sw = mark_low_n(drop_sums(sw), "decided", min_n)
    r = sw.row(0, named=True)
    for label, key, x in (("VP", "flipped_exact_share", "flipped_exact"),
                          ("VP-equivalent", "flipped_eq_share", "flipped_eq")):
        headline_row(headline, f"games decided by raids ({label})", "rate", r[key], r["decided"],
                  r[x], deff=r[f"{key}_deff"], se=r[f"{key}_se"])
    sec = Section("raids", "4. Raid impact", text=[
        f"VP-equivalent of a payment: VP paid, a good = {rates.goods_vp:g} VP, a gold = "
        f"{rates.gold_vp:g} VP ({rates.source}), plus the VP the opponent received when the "
        "player could not pay.",
        "A decided game would change winner without raids when the winner's margin is at most "
        "what raids cost the loser minus what they cost the winner (and that is > 0). "
        "'exact' counts only VP tokens paid and VP given to the opponent, which is exactly "
        "their score effect; 'VP-equivalent' also values goods and gold paid.",
    ], tables=[
        Table("raids_payments", "Payment mix per raid (share of players) and the payers' "
              "rate", mix, n_col="n", hidden=("raid_n", "points", "vp_equivalent", "amount",
                                               "opponent_bonus", "share_se", "payer_wr_se")),
        Table("raids_per_raid", "Per raid: mean VP-equivalent lost, rate of VP payers vs goods "
              "payers", per_raid, n_col="n"),
        Table("raids_winner_change", "Games whose winner would change if raids cost nothing",
              sw, n_col="decided", hidden=("flipped_exact_share_se", "flipped_eq_share_se")),
    ])
    sec.plots.append(make_plot("raids_mix", "Payment mix per raid", plots.raid_mix(mix)))
    return sec
