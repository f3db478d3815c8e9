"""Documentation tables that restate a committed results file must say what that file says (no re-run: fast).

bench_reductions: the ``tests/benchmarks/bench_reductions.py`` table of ``docs/performance.md`` is read against
``tests/benchmarks/results/bench_reductions.md``: every number as printed there, and the epsilons of its headers;
the README's one-line summary of it too.
"""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PERFORMANCE = ROOT / "docs" / "performance.md"


def _markdown_tables(text):
    """Every pipe table in ``text``: ``[(header cells, [row cells, ...]), ...]`` (separator lines dropped)."""
    tables, current = [], None
    for line in text.splitlines():
        if line.startswith("|") and line.rstrip().endswith("|"):
            cells = [cell.strip() for cell in line.strip()[1:-1].split("|")]
            if current is None:
                current = (cells, [])
                tables.append(current)
            elif not all(re.fullmatch(r":?-+:?", cell) for cell in cells):
                current[1].append(cells)
        else:
            current = None
    return tables


def _rows_by(table, key):
    header, rows = table
    return {row[0]: dict(zip(header, row, strict=False)) for row in rows} if key is None else {
        row[header.index(key)]: dict(zip(header, row, strict=False)) for row in rows}


# ------------------------------------------------------------------------------------------ bench_reductions
BENCH_REDUCTIONS = ROOT / "tests" / "benchmarks" / "results" / "bench_reductions.md"


def _results_section(text, heading_start):
    """The text of the results file's ``## ...`` section whose heading starts with ``heading_start``, with the
    heading line."""
    for part in text.split("\n## ")[1:]:
        if part.startswith(heading_start):
            return "## " + part
    raise AssertionError(f"bench_reductions.md has no section '## {heading_start}...'")


def _bench_reductions_results():
    text = BENCH_REDUCTIONS.read_text()
    exact = _results_section(text, "Exact oracle")
    private = _results_section(text, "Private oracles")
    whole = _results_section(text, "Whole fit")
    private_eps = re.search(r"## Private oracles \(epsilon = ([^,]+), T = (\d+)\)", private)
    whole_eps = re.search(r"## Whole fit: the statistics game \(epsilon = ([^,]+), delta = ([^)]+)\)", whole)
    assert private_eps and whole_eps, "bench_reductions.md headings changed: update this test"
    date = re.search(r"Date: (\d{4}-\d{2}-\d{2})", text)
    return {"exact": _rows_by(_markdown_tables(exact)[0], None),
            "private": [dict(zip(_markdown_tables(private)[0][0], row, strict=False)) for row in _markdown_tables(private)[0][1]],
            "whole": _rows_by(_markdown_tables(whole)[0], None),
            "private_epsilon": private_eps.group(1), "private_T": private_eps.group(2),
            "whole_epsilon": whole_eps.group(1), "whole_delta": whole_eps.group(2),
            "date": date.group(1) if date else None}


def _bench_reductions_readme():
    """The performance page's bench_reductions paragraph (up to its "Full output" line) and its one table."""
    performance = PERFORMANCE.read_text()
    start = performance.index("`tests/benchmarks/bench_reductions.py`:")
    paragraph = performance[start:performance.index("Full output: `tests/benchmarks/results/bench_reductions.md`",
                                                    start)]
    tables = _markdown_tables(paragraph)
    assert len(tables) == 1, "expected one bench_reductions table in docs/performance.md"
    return paragraph, tables[0]


def _number(cell, pattern=r"([0-9][0-9.,]*)"):
    match = re.search(pattern, cell)
    assert match, f"no number in README cell {cell!r}"
    return match.group(1)


def test_bench_reductions_readme_epsilons_match_the_results_file():
    results = _bench_reductions_results()
    paragraph, (header, _) = _bench_reductions_readme()
    algorithm3 = [h for h in header if h.startswith("Algorithm 3")]
    game = [h for h in header if "statistics game" in h]
    assert len(algorithm3) == 1 and len(game) == 1, header
    # The private-oracle column names the epsilon the private rows ran at, the whole-fit column the game's.
    assert re.search(r"ε = ([0-9.]+|∞)", algorithm3[0]).group(1) == results["private_epsilon"]
    assert re.search(r"ε = ([0-9.]+|∞)", game[0]).group(1) == results["whole_epsilon"]
    # The prose states the same settings.
    goal = re.search(r"statistics game, ε = ([0-9.]+), δ = ([0-9e.-]+)", paragraph)
    assert goal and goal.groups() == (results["whole_epsilon"], results["whole_delta"])
    assert f"max_iter={results['private_T']}" in paragraph
    if results["date"] is not None:
        assert results["date"] in paragraph
    # No other epsilon is attached to the private oracles anywhere in the performance page or the README.
    text = PERFORMANCE.read_text() + README.read_text()
    for mention in re.findall(r"Algorithm 3 at ε = ([0-9.]+)", text):
        assert mention == results["private_epsilon"]


def test_bench_reductions_readme_numbers_match_the_results_file():
    results = _bench_reductions_results()
    _, (header, rows) = _bench_reductions_readme()
    assert rows, "the README's bench_reductions table has no rows"
    column = {name: i for i, name in enumerate(header)}
    game = next(h for h in header if "statistics game" in h)
    algorithm3 = next(h for h in header if h.startswith("Algorithm 3"))
    best_response = next(h for h in header if "per best response" in h)
    rounds = next(h for h in header if h.startswith("rounds"))
    checked = set()
    for row in rows:
        constraint = row[0].replace(" ", "_")                 # "equalized odds" -> "equalized_odds"
        cell = {name: row[i] for name, i in column.items()}
        whole = results["whole"][constraint]
        exact = results["exact"][constraint]
        assert _number(cell["Fairlearn whole fit"]) == whole["Fairlearn whole fit (s)"], row
        assert _number(cell[game]) == next(v for k, v in whole.items() if k.startswith("ours whole fit")), row
        assert _number(cell["ratio"]) + "x" == whole["ratio"], row
        played, outer = (part.strip() for part in cell[rounds].split("/"))
        assert played == next(v for k, v in whole.items() if k.startswith("ours rounds played")), row
        assert outer == whole["Fairlearn outer iterations"], row
        assert _number(cell[best_response]) + "x" == exact["ratio ours / Fairlearn per call"], row
        private = {r["oracle"].split(" ")[0]: r for r in results["private"] if r["constraint"] == constraint}
        for oracle, r in private.items():
            match = re.search(rf"{oracle}(?: \(([0-9,]+) hypotheses\))? ([0-9.]+)", cell[algorithm3])
            assert match, f"{constraint}: the README omits the {oracle} oracle"
            assert match.group(2) == r["s / iteration"], row
            if match.group(1) is not None:
                assert f"({match.group(1)} hypotheses)" in r["oracle"], row
        checked.add(constraint)
    assert checked == set(results["whole"]), "a constraint of the results file is missing from the docs table"


def test_readme_performance_row_matches_the_results_file():
    """The README's one-line bench_reductions summary states the results file's whole-fit times and ratios."""
    results = _bench_reductions_results()
    text = README.read_text()
    row = next(line for line in text.splitlines() if line.startswith("| `bench_reductions.py`"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    eo, dp = results["whole"]["equalized_odds"], results["whole"]["demographic_parity"]
    def ours(r):
        return float(next(v for k, v in r.items() if k.startswith("ours whole fit")))
    assert cells[1] == f"{ours(eo):.2f} s / {ours(dp):.2f} s (EO / DP)"
    assert cells[2] == (f"{float(eo['Fairlearn whole fit (s)']):.2f} s / {float(dp['Fairlearn whole fit (s)']):.2f} s"
                        " (Fairlearn)")
    assert cells[3] == f"{eo['ratio']} / {dp['ratio']}"
    assert f"ε = {results['whole_epsilon']}" in cells[0]


@pytest.mark.parametrize("cell, expected", [("0.987 s", "0.987"), ("**0.73x**", "0.73"), ("50 / 7", "50")])
def test_number_parser(cell, expected):
    assert _number(cell) == expected


# ------------------------------------------------------------------------------------------ reproductions
def _reproduction_row(script):
    text = README.read_text()
    section = text.split("\n## Reproductions\n", 1)[1].split("\n## ", 1)[0]
    header, rows = _markdown_tables(section)[0]
    return next(dict(zip(header, row, strict=False)) for row in rows if row[1] == f"`{script}`")


#: The attribute-blind reproduction's committed summaries: seeds 0-49 and the independent seeds 100-149.
BLIND_SUMMARIES = (ROOT / "docs" / "img" / "blind_fair_regression_summary.csv",
                   ROOT / "docs" / "img" / "blind_fair_regression_summary_seeds100-149.csv")


def _blind_goal_rows(path):
    """{mode: row} of the goal setting (epsilon = 1, alpha = 0.1) and the raw targets in a committed summary."""
    import pandas as pd

    summary = pd.read_csv(path)
    goal = summary[(summary["mode"] == "raw") | ((summary["epsilon"] == 1.0) & (summary["alpha"] == 0.1))]
    return {row["mode"]: row for _, row in goal.iterrows()}


def test_readme_blind_row_matches_its_summary():
    """The README's attribute-blind row states the committed summaries' goal setting: both seed sets' mean ± std and
    share of seeds above 0.15, the aware map's, and the MSEs."""
    row = _reproduction_row("blind_fair_regression.py")["what holds"]
    first, independent = (_blind_goal_rows(path) for path in BLIND_SUMMARIES)
    blind, aware, raw = first["blind"], first["aware"], first["raw"]

    def spread(r):
        return f"{r['ks_mean']:.3f} ± {r['ks_std']:.3f}"

    def seeds(r):
        return f"seeds {int(r['first_seed'])}-{int(r['first_seed'] + r['n_seeds'] - 1)}"

    expected = [f"{seeds(blind)}: test KS {raw['ks_mean']:.2f} → {spread(blind)} blind",
                f"({seeds(independent['blind'])}: {spread(independent['blind'])}, ",
                f"{spread(aware)} aware ({100 * aware['ks_above_goal']:.0f}%)",
                f"MSE {blind['mse_mean']:.3f} vs {aware['mse_mean']:.3f}"]
    for text in expected:
        assert text in row, f"README blind row: expected {text!r} in {row!r}"
    # the share above the goal varies with the BLAS kernel: stated as a range over the committed kernel runs
    # (tests/test_stated_figures.py recomputes it), which holds the summaries' own share
    for summary in (blind, independent["blind"]):
        low, high = re.search(rf"{seeds(summary)}\D[^%]*?(\d+)–(\d+)%", row).groups()
        assert int(low) <= round(100 * summary["ks_above_goal"]) <= int(high), row


def test_readme_zhu_row_matches_the_committed_tables():
    """The README's Zhu et al. row: Table 2's ours / paper ratios for both count columns, Table 1's α within one
    standard error of the paper's (stand-in Hawaii rows)."""
    import pandas as pd

    row = _reproduction_row("zhu2022_allocation.py")["what holds"]

    def ratios(name):
        table = pd.read_csv(ROOT / "docs" / "img" / name)
        cells = pd.concat([table["alpha"] / table["paper_alpha"], table["cost_share"] / table["paper_cost_share"]])
        return cells.min(), cells.max()

    low, high = ratios("zhu2022_table2_children_5_17.csv")
    assert f"every cell {low:.2f}–{high:.1f}x the paper's" in row, row
    low, high = ratios("zhu2022_table2.csv")
    assert f"({low:.0f}–{high:.0f}x with the children in poverty)" in row, row
    hawaii = pd.read_csv(ROOT / "docs" / "img" / "zhu2022_table1.csv").query("instance == 'hawaii'")
    assert "the plain Monte-Carlo α within one standard error of the paper's" in row
    assert ((hawaii["alpha"] - hawaii["paper_alpha"]).abs() < hawaii["alpha_se"]).all()


def test_readme_bench_blind_row_matches_the_results_file():
    results = (ROOT / "tests" / "benchmarks" / "results" / "bench_blind.md").read_text()
    (header, rows), = _markdown_tables(results)
    times = {row[0]: float(row[1]) for row in rows}
    blind = times["blind, sparse LP (SciPy HiGHS)"]
    written = times["blind, LP as written (cvxpy + HiGHS)"]
    row = next(line for line in README.read_text().splitlines() if line.startswith("| `bench_blind.py`"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1] == f"{blind:.3f} s"
    assert cells[2].startswith(f"{written:.2f} s")
    assert cells[3] == f"{written / blind:.0f}x faster"


# ------------------------------------------------------------------------------------------ bench_noise
def _bench_noise_results():
    """The committed bench_noise run: per (mechanism, source) row, the secure pair row, the date and the load."""
    text = (ROOT / "tests" / "benchmarks" / "results" / "bench_noise.md").read_text()
    (timing_header, timing_rows), (pair_header, pair_rows) = _markdown_tables(text)[:2]
    rows = {(row[0], row[1].split(" ")[0]): dict(zip(timing_header, row, strict=False)) for row in timing_rows}
    pair = dict(zip(pair_header, pair_rows[0], strict=False))
    date = re.search(r"Date: (\d{4}-\d{2}-\d{2})", text).group(1)
    load = re.search(r"Load average at start: ([0-9.]+)", text).group(1)
    return rows, pair, date, load


def _noise_cells(rows, mechanism, source):
    row = rows[(mechanism, source)]
    new = float(next(v for k, v in row.items() if k.startswith("new randomise_vector, median")))
    old = float(next(v for k, v in row.items() if k.startswith("old per-cell loop, median")))
    return new, old, row["ratio old / new"].strip("*")


def test_bench_noise_rows_match_the_results_file():
    """The README's bench_noise row and the performance page's release-noise table and ratio state the committed
    run's medians, ratios, date and load."""
    rows, pair, date, load = _bench_noise_results()
    laplace, gaussian = _noise_cells(rows, "Laplace", "secure"), _noise_cells(rows, "GaussianAnalytic", "secure")
    ratio = next(v for k, v in pair.items() if k.startswith("ratio Gaussian / Laplace")).strip("*")
    row = next(line for line in README.read_text().splitlines() if line.startswith("| `bench_noise.py`"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1] == f"{laplace[0]:.3f} s / {gaussian[0]:.3f} s (Gaussian / Laplace in paired rounds: {ratio})"
    assert cells[2] == f"{laplace[1]:.2f} s / {gaussian[1]:.2f} s (per-cell `randomise`)"
    assert cells[3] == f"{laplace[2]} / {gaussian[2]} faster"
    performance = PERFORMANCE.read_text()
    start = performance.index("**Release noise** (`tests/benchmarks/bench_noise.py`")
    section = performance[start:performance.index("**Secure Gaussian in array form.**", start)]
    (header, table), = _markdown_tables(section)
    by_mechanism = {r[0]: r for r in table}
    for name, mechanism in (("Laplace", "Laplace"), ("Gaussian", "GaussianAnalytic")):
        new, old, speedup = _noise_cells(rows, mechanism, "secure")
        seeded_new, _, seeded_speedup = _noise_cells(rows, mechanism, "seeded")
        assert by_mechanism[name][1] == f"**{new:.3f} s** (was {old:.2f} s, {speedup})"
        assert by_mechanism[name][2] == f"{seeded_new:.3f} s ({seeded_speedup})"
    paired = [float(next(v for k, v in pair.items() if k.startswith(f"secure {m}"))) for m in ("Gaussian", "Laplace")]
    assert f"(medians {paired[0]:.3f} s / {paired[1]:.3f} s): **{ratio}**" in section
    assert f"range {pair['range over rounds']})" in section
    assert f"Run of {date} (load average {load} on 2 cores" in section
    assert ("Goal < 1.5x: met." if float(ratio.rstrip("x")) < 1.5 else "Goal < 1.5x: missed.") in section



# ---------------------------------------------------------------------------------------- bench_adult_groups
BENCH_ADULT_GROUPS = ROOT / "tests" / "benchmarks" / "results" / "bench_adult_groups.md"
INPROCESSING = ROOT / "docs" / "user_guide" / "inprocessing.md"


def _adult_groups_results():
    """``{section heading: (header, rows)}`` of the results file's ``### ...`` tables."""
    text = BENCH_ADULT_GROUPS.read_text()
    sections = {}
    for part in text.split("\n### ")[1:]:
        heading = part.splitlines()[0].strip()
        (table,) = _markdown_tables(part)
        sections[heading] = table
    return sections


def test_bench_adult_groups_rows_of_the_performance_page_match_the_results_file():
    """The performance page's two Adult-by-race tables repeat rows of the committed run verbatim (race, demographic
    parity, then equalized odds), and its goal sentence states the run's figures."""
    results = _adult_groups_results()
    performance = PERFORMANCE.read_text()
    start = performance.index("**Accuracy and fairness on Adult by group.**")
    section = performance[start:performance.index("**Attribute-blind fair regression post-processing.**", start)]
    tables = _markdown_tables(section)
    assert len(tables) == 2
    for (header, rows), heading in zip(tables, ("Adult by race, demographic parity", "Adult by race, equalized odds"), strict=False):
        result_header, result_rows = results[heading]
        assert header == result_header
        for row in rows:
            assert row in result_rows, (heading, row)
    by_key = {tuple(r[:3]): r for r in results["Adult by race, demographic parity"][1]}
    record, attribute = by_key[("record", "DPEG", "1")], by_key[("attribute", "DPEG", "1")]
    assert f"accuracy {record[3].split(' ')[0]} (goal ≥ 0.80) at DP difference {record[4].split(' ')[0]}" in section
    assert f"DP difference {attribute[4].split(' ')[0]} (goal ≤ 0.08" in section


def test_bench_adult_groups_frontier_of_the_inprocessing_page_matches_the_results_file():
    """The in-processing page's frontier table (Adult by race, "record") repeats the results file's frontier rows."""
    header, rows = _adult_groups_results()["Frontier: DPEG on Adult by race under privacy_unit='record'"]
    frontier = {(r[0], r[1], r[2]): (r[3], r[4]) for r in rows}
    text = INPROCESSING.read_text()
    start = text.index("**Small groups.**")
    (doc_header, doc_rows), = [t for t in _markdown_tables(text[start:]) if t[0][:3] == ["constraint", "ε",
                                                                                         "`max_iter`"]][:1]
    assert doc_rows
    for constraint, epsilon, rounds, accuracy, difference in doc_rows:
        key = (constraint.replace(" ", "_"), epsilon, rounds.split(" ")[0])
        assert frontier[key] == (accuracy, difference), key


# ---------------------------------------------------------------------------------------- bench_usefulness
BENCH_USEFULNESS = ROOT / "tests" / "benchmarks" / "results"


def _usefulness_passing(name):
    """``(passing, cells)`` summed over the acceptance table of a committed bench_usefulness results file."""
    text = (BENCH_USEFULNESS / name).read_text()
    section = text[text.index("## Acceptance"):text.index("\n## ", text.index("## Acceptance") + 1)]
    (header, rows), = _markdown_tables(section)
    column = header.index("settings × ε passing")
    counts = [re.fullmatch(r"(\d+) of (\d+)", row[column]).groups() for row in rows]
    return sum(int(p) for p, _ in counts), sum(int(c) for _, c in counts)


def test_readme_and_performance_usefulness_rows_match_the_results_files():
    """The README's bench_usefulness row and the performance page's table state the committed runs' pass counts,
    before the final choice against the constants and with it."""
    after, before = _usefulness_passing("bench_usefulness.md"), _usefulness_passing("bench_usefulness_before.md")
    row = next(line for line in README.read_text().splitlines() if line.startswith("| `bench_usefulness.py`"))
    assert f"{after[0]} of {after[1]} cells" in row and f"{before[0]} of {before[1]}" in row, row
    performance = PERFORMANCE.read_text()
    start = performance.index("**Useful on data nobody here tuned for")
    (header, rows), = _markdown_tables(performance[start:performance.index("**Accuracy and fairness on Adult", start)])
    assert sum(int(r[1].split(" of ")[0]) for r in rows) == before[0]
    assert sum(int(r[2].split(" of ")[0]) for r in rows) == after[0]
