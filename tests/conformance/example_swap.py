"""Read a Fairlearn documentation example and apply the one-line swap to it, without editing the copy.

An example is either a script (``examples/plot_*.py``, run as sphinx-gallery runs it: one module) or a list of
``>>>`` examples from ``.. doctest::``/``.. plot::`` blocks of an ``.rst`` page (run as doctest runs them: one
statement at a time, expression values echoed). :func:`compile_example` parses the source and rewrites its syntax
tree:

- ``from fairlearn.datasets import fetch_adult`` imports a bundled loader instead (every mode: nothing is downloaded);
- in the swapped modes, ``from fairlearn.postprocessing import ThresholdOptimizer`` becomes
  ``from fairlearn_dp.postprocessing import DPThresholdOptimizer`` (likewise ``ExponentiatedGradient``), every use
  of the name is renamed, and every construction gets the mode's keyword arguments (``epsilon=float("inf")``, or
  the documented DP arguments);
- for the metric examples (issue 38), ``from fairlearn.metrics import MetricFrame`` becomes
  ``fairlearn_dp.metrics.DPMetricFrame`` and Fairlearn's fairness aggregates (``demographic_parity_difference``, ...)
  the ``dp_*`` ones (:data:`METRICS_REPLACED`), with the mode's keyword arguments added to each call.

A swap may also leave out statements (by the line they start on: a variant of an example, or an example's exact
assert that a private run cannot meet) and show the value of each top-level expression statement of a script
(``echo``, as sphinx-gallery shows them). Line numbers stay those of the copy, so a traceback points into it.
:func:`swapped_source` shows the rewritten code.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

#: Fairlearn's replaced classes: (module, name) -> (fairdp module, fairdp name).
REPLACED = {
    ("fairlearn.postprocessing", "ThresholdOptimizer"): ("fairlearn_dp.postprocessing", "DPThresholdOptimizer"),
    ("fairlearn.reductions", "ExponentiatedGradient"): ("fairlearn_dp.reductions", "DPExponentiatedGradient"),
}
#: Fairlearn's MetricFrame and fairness aggregates -> fairdp's (the swap of the metric examples).
METRICS_REPLACED = {
    ("fairlearn.metrics", "MetricFrame"): ("fairlearn_dp.metrics", "DPMetricFrame"),
    **{("fairlearn.metrics", name): ("fairlearn_dp.metrics", f"dp_{name}") for name in (
        "demographic_parity_difference", "demographic_parity_ratio", "equalized_odds_difference",
        "equalized_odds_ratio", "equal_opportunity_difference", "equal_opportunity_ratio")},
}
_DIRECTIVE = re.compile(r"^(?P<indent>\s*)\.\. (?P<name>doctest|plot)::(?P<arg>.*)$")
_PROMPT = re.compile(r"^\s*(>>>|\.\.\.)( |$)")
_BLANK_OR_COMMENT = re.compile(r"^\s*(#.*)?$")


@dataclass(frozen=True)
class Statement:
    """One doctest example (``>>>`` line and its ``...`` continuations), at ``line`` (1-based) of the page."""

    source: str
    line: int


def doctest_statements(page: Path, directive_lines: tuple[int, ...]) -> list[Statement]:
    """The ``>>>`` examples of the ``.. doctest::``/``.. plot::`` directives that start at ``directive_lines``.

    Raises ValueError if a listed line is not such a directive or a directive has no example (a moved copy).
    """
    lines = page.read_text(encoding="utf-8").splitlines()
    statements = []
    for start in directive_lines:
        match = _DIRECTIVE.match(lines[start - 1]) if 0 < start <= len(lines) else None
        if match is None:
            raise ValueError(f"{page.name}:{start} is not a '.. doctest::' or '.. plot::' directive")
        found = _directive_statements(lines, start, len(match.group("indent")))
        if not found:
            raise ValueError(f"{page.name}:{start}: the directive holds no '>>>' example")
        statements += found
    return statements


def _directive_statements(lines, start, indent):
    """The examples in the body of the directive on line ``start`` (the lines indented deeper than it)."""
    statements, current = [], None
    for number in range(start + 1, len(lines) + 1):
        text = lines[number - 1]
        if text.strip() and len(text) - len(text.lstrip()) <= indent:
            break                                             # the directive's body has ended
        prompt = _PROMPT.match(text)
        if prompt and prompt.group(1) == ">>>" and _BLANK_OR_COMMENT.match(text[prompt.end():]):
            current = None                                    # doctest skips comment-only examples
        elif prompt and prompt.group(1) == ">>>":
            current = [number, [text[prompt.end():]]]
            statements.append(current)
        elif prompt and current is not None:
            current[1].append(text[prompt.end():])
        else:
            current = None                                    # expected output or prose: not code
    return [Statement("\n".join(body) + "\n", number) for number, body in statements]


@dataclass(frozen=True)
class Swap:
    """What :class:`_SwapTransformer` changes.

    ``datasets`` maps a ``fairlearn.datasets`` name to the module to import it from instead. ``replace`` says
    whether the replaced classes are swapped for fairdp's; ``keywords`` maps a fairdp class name to
    ``{argument: Python expression}`` added to each of its constructions. ``table`` is what is replaced:
    :data:`REPLACED` (the mitigators, the default) or :data:`METRICS_REPLACED`.
    """

    datasets: dict
    replace: bool
    keywords: dict
    table: dict | None = None
    dropped: tuple = ()              # lines of statements not run (each must be found)
    echo: bool = False               # a script's top-level expression values are shown (``sys.displayhook``)
    #: ``weight_bound=`` added to each DPMetricFrame call whose ``sample_params`` hold a ``sample_weight`` (the
    #: public bound of the example's weights, as docs/user_guide/private_reporting.md asks): an expression, or
    #: ``{line of the call: expression}``; None: such a call is an error in the swapped modes.
    weight_bound: str | dict | None = None

    @property
    def replaced(self) -> dict:
        """``{(module, name): (fairdp module, fairdp name)}`` of this swap."""
        return REPLACED if self.table is None else self.table


class _SwapTransformer(ast.NodeTransformer):
    def __init__(self, swap: Swap):
        self.swap = swap
        self.renamed = {}          # name bound in the example -> fairdp class name, for the keyword injection
        self.constructions = 0
        self.dropped = set()
        self.weighted_names = set()   # names bound to a dict that holds a "sample_weight" key (sample_params)

    def visit(self, node):
        if isinstance(node, ast.stmt) and node.lineno in self.swap.dropped:
            self.dropped.add(node.lineno)
            return ast.copy_location(ast.Pass(), node)
        return super().visit(node)

    def visit_ImportFrom(self, node):
        if node.module == "fairlearn.datasets":
            return self._redirect_datasets(node)
        if not self.swap.replace:
            return node
        kept, moved = [], []
        for alias in node.names:
            (moved if (node.module, alias.name) in self.swap.replaced else kept).append(alias)
        if not moved:
            return node
        new = []
        if kept:
            new.append(ast.ImportFrom(module=node.module, names=kept, level=0))
        for alias in moved:
            module, name = self.swap.replaced[(node.module, alias.name)]
            bound = alias.asname or alias.name
            self.renamed[bound] = name
            new.append(ast.ImportFrom(module=module, names=[ast.alias(name, alias.asname)], level=0))
        return [ast.copy_location(item, node) for item in new]

    def _redirect_datasets(self, node):
        redirected, kept = [], []
        for alias in node.names:
            (redirected if alias.name in self.swap.datasets else kept).append(alias)
        new = [ast.ImportFrom(module=node.module, names=kept, level=0)] if kept else []
        new += [ast.ImportFrom(module=self.swap.datasets[alias.name], names=[alias], level=0)
                for alias in redirected]
        return [ast.copy_location(item, node) for item in new]

    def visit_Assign(self, node):
        self.generic_visit(node)
        names = {t.id for t in node.targets if isinstance(t, ast.Name)}
        if _holds_sample_weight(node.value, self.weighted_names):
            self.weighted_names |= names
        else:
            self.weighted_names -= names                      # rebound to something else
        return node

    def visit_Name(self, node):
        if node.id in self.renamed and self.renamed[node.id] != node.id:
            return ast.copy_location(ast.Name(id=self.renamed[node.id], ctx=node.ctx), node)
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        name = node.func.id if isinstance(node.func, ast.Name) else None
        fairdp_name = next((new for bound, new in self.renamed.items() if name in (bound, new)), None)
        if fairdp_name is None:
            return node
        self.constructions += 1
        present = {keyword.arg for keyword in node.keywords}
        for argument, expression in self.swap.keywords.get(fairdp_name, {}).items():
            if argument in present and argument == "random_state":
                continue                                      # the example's own seed is kept
            if argument in present:
                raise ValueError(f"line {node.lineno}: the example already passes {argument}=")
            if isinstance(expression, dict):                  # one expression per call, by the call's line
                if node.lineno not in expression:
                    raise ValueError(f"line {node.lineno}: no {argument}= given for this call of {fairdp_name}")
                expression = expression[node.lineno]
            value = ast.parse(expression, mode="eval").body
            node.keywords.append(ast.copy_location(ast.keyword(arg=argument, value=value), node))
        if fairdp_name == "DPMetricFrame" and any(
                k.arg == "sample_params" and _holds_sample_weight(k.value, self.weighted_names) for k in node.keywords):
            self._add_weight_bound(node)
        if fairdp_name == "DPMetricFrame" or fairdp_name.startswith("dp_"):
            _fold_options(node)
        return node

    def _add_weight_bound(self, node):
        """``weight_bound=`` on a weighted frame (only there: a frame without weights refuses it)."""
        expression = self.swap.weight_bound
        if isinstance(expression, dict):
            expression = expression.get(node.lineno)
        if expression is None:
            raise ValueError(f"line {node.lineno}: sample_params hold a sample_weight, but the swap has no "
                             "weight_bound= for this call")
        value = ast.parse(expression, mode="eval").body
        node.keywords.append(ast.copy_location(ast.keyword(arg="weight_bound", value=value), node))


#: DPMetricFrame's expert settings (``fairlearn_dp.metrics.MetricFrameOptions``, which the ``dp_*`` aggregates
#: forward): the swap's ``labels=`` (a multiclass example) and ``weight_bound=`` (a weighted one) are passed as one
#: ``options=MetricFrameOptions(...)``, named through ``__import__`` so that the example needs no extra import.
_OPTION_FIELDS = ("labels", "public_predictions", "max_noise_error", "weight_bound")
_OPTIONS_CLASS = '__import__("fairlearn_dp.metrics").metrics.MetricFrameOptions'


def _fold_options(node):
    """Move the keywords of ``node`` that are fields of the frame's options into ``options=MetricFrameOptions(...)``."""
    fields = [keyword for keyword in node.keywords if keyword.arg in _OPTION_FIELDS]
    if not fields:
        return
    node.keywords = [keyword for keyword in node.keywords if keyword.arg not in _OPTION_FIELDS]
    options = ast.Call(func=ast.parse(_OPTIONS_CLASS, mode="eval").body, args=[], keywords=fields)
    options = ast.fix_missing_locations(ast.copy_location(options, node))
    node.keywords.append(ast.copy_location(ast.keyword(arg="options", value=options), node))


def _holds_sample_weight(node, weighted_names):
    """Whether the expression ``node`` is (or nests) a dict with the key ``"sample_weight"``, or names one that
    was bound to such a dict earlier in the example (syntax only: no code of the example runs)."""
    for part in ast.walk(node):
        if isinstance(part, ast.Dict) and any(isinstance(key, ast.Constant) and key.value == "sample_weight"
                                              for key in part.keys):
            return True
        if isinstance(part, ast.Call) and any(k.arg == "sample_weight" for k in part.keywords) and \
                isinstance(part.func, ast.Name) and part.func.id == "dict":
            return True
        if isinstance(part, ast.Name) and part.id in weighted_names:
            return True
    return False


def _check_complete(tree, swap, where):
    """No use of a replaced Fairlearn class may survive the swap (e.g. ``fairlearn.reductions.X`` attributes)."""
    if not swap.replace:
        return
    old = {name for _, name in swap.replaced}
    for node in ast.walk(tree):
        used = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None
        if used in old:
            raise ValueError(f"{where}:{node.lineno}: {used} is used in a form the swap does not rewrite")


def _rewrite(tree, transformer, where):
    tree = ast.fix_missing_locations(transformer.visit(tree))
    _check_complete(tree, transformer.swap, where)
    return tree


def _echo_expressions(tree):
    """A script's top-level expression statements passed to ``sys.displayhook``, as doctest and sphinx-gallery
    show their values (so that the frames an example shows, not only what it prints, are compared)."""
    for index, node in enumerate(tree.body):
        if isinstance(node, ast.Expr) and not isinstance(node.value, ast.Constant):
            hook = ast.parse("__import__('sys').displayhook(None)", mode="eval").body
            hook.args = [node.value]
            tree.body[index] = ast.copy_location(ast.Expr(value=hook), node)
    return ast.fix_missing_locations(tree)


def _check_dropped(transformer, where):
    missing = set(transformer.swap.dropped) - transformer.dropped
    if missing:
        raise ValueError(f"{where}: no statement starts on line(s) {sorted(missing)} (a moved copy?)")


def compile_example(path: Path, statements: list[Statement] | None, swap: Swap):
    """Code objects for the swapped example: one module for a script, one ``"single"`` unit per doctest example.

    Returns ``(codes, constructions)``, the number of replaced-class constructions found (0 without ``replace``).
    """
    transformer = _SwapTransformer(swap)
    filename = str(path)
    if statements is None:
        tree = _rewrite(ast.parse(path.read_text(encoding="utf-8"), filename), transformer, path.name)
        _check_dropped(transformer, path.name)
        tree = _echo_expressions(tree) if swap.echo else tree
        return [compile(tree, filename, "exec")], transformer.constructions
    codes = []
    for statement in statements:
        tree = ast.parse(statement.source, filename, mode="single")
        ast.increment_lineno(tree, statement.line - 1)
        codes.append(compile(_rewrite(tree, transformer, path.name), filename, "single"))
    _check_dropped(transformer, path.name)
    return codes, transformer.constructions


def swapped_source(path: Path, statements: list[Statement] | None, swap: Swap) -> str:
    """The rewritten example as Python source (what the swap amounts to; comments are not kept)."""
    transformer = _SwapTransformer(swap)
    if statements is None:
        return ast.unparse(_rewrite(ast.parse(path.read_text(encoding="utf-8")), transformer, path.name)) + "\n"
    parts = []
    for statement in statements:
        tree = ast.parse(statement.source, mode="single")
        ast.increment_lineno(tree, statement.line - 1)               # the copy's line numbers (dropped asserts)
        parts.append(_rewrite(tree, transformer, path.name))
    return "\n".join(ast.unparse(ast.Module(body=part.body, type_ignores=[])) for part in parts) + "\n"
