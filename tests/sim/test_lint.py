"""Linters (sre_gym/sim/lint.py): one per file type, plus the common checks."""

from __future__ import annotations

import pytest

from sre_gym.sim.lint import lint_file, lint_tree, linter_of
from sre_gym.sim.source_trees import apps_with_sources, base_tree, services_with_trees


@pytest.mark.parametrize(
    ("path", "good", "bad", "message"),
    [
        ("x.py", "def f(a):\n    return {a: [1, 2]}\n", "def f(a:\n    return 1\n", "SyntaxError"),
        ("x.json", '{"a": [1, 2]}\n', '{"a": [1, 2],}\n', "invalid JSON"),
        ("x.yaml", "a:\n  b: [1, 2]\n---\nc: 3\n", "a:\n  b: [1, 2\n", "invalid YAML"),
        ("x.csproj", "<Project><A/></Project>\n", "<Project><A></Project>\n", "invalid XML"),
        ("Cargo.toml", '[package]\nname = "x"\n', '[package\nname = "x"\n', "invalid TOML"),
        (
            "x.go",
            "func f() {\n\ts := `raw { not a brace`\n\tr := '}'\n\t_ = s + string(r)\n}\n",
            "func f() {\n\tif x {\n}\n",
            "'{' is never closed",
        ),
        (
            "X.java",
            'class A {\n  String s = """\n    text { block\n    """;\n  char c = \'(\';\n}\n',
            "class A {\n  void f() { g(); }}\n}\n",
            "unmatched '}'",
        ),
        (
            "x.kt",
            'fun f() {\n  /* outer /* nested } */ still comment */\n  val s = "${x} }"\n}\n',
            "fun f() {\n  val s = listOf(1, 2]\n}\n",
            "']' does not close '('",
        ),
        (
            "x.ts",
            "const a = `x ${b + { c: 1 }.c} }`;\nfoo(a);\n",
            "const a = `x ${b + 1`;\n",
            "unterminated template literal",
        ),
        (
            "x.js",
            "const a = 'it\\'s {';\nf(a);\n",
            "const a = 'unterminated;\nf(a);\n",
            "unterminated string literal",
        ),
        (
            "X.cs",
            'var p = @"C:\\dir""{";\nvar s = $"{x}";\n',
            'var p = @"C:\\dir""{;\n',
            "unterminated verbatim string",
        ),
        (
            "x.cpp",
            'auto s = R"x(a ) { b)x";\nint f() { return 1; }\n',
            "int f() { return (1; }\n",
            "'}' does not close '('",
        ),
        (
            "x.rs",
            "fn f<'a>(x: &'a str) -> char { let c = '{'; c }\n",
            "fn f<'a>(x: &'a str) -> char { let c = '{'; c \n",
            "'{' is never closed",
        ),
        (
            "x.php",
            "<?php\n# a comment with { brace\n$a = ['k' => \"{\"];\n",
            "<?php\nfunction f() {\n",
            "'{' is never closed",
        ),
        ("x.rb", 'x = "#{a} {"\n# comment )\ny = [1, 2]\n', "y = [1, 2\n", "'[' is never closed"),
        (
            "nginx.conf",
            "http {\n  # } comment\n  log_format main '$a {';\n}\n",
            "http {\n  server {\n}\n",
            "'{' is never closed",
        ),
        (
            "build.gradle",
            "dependencies {\n    implementation 'a:b:1.0'\n}\n",
            "dependencies {\n    implementation 'a:b:1.0'\n",
            "'{' is never closed",
        ),
    ],
)
def test_linters(path, good, bad, message):
    assert lint_file(path, good) == [], lint_file(path, good)
    issues = lint_file(path, bad)
    assert issues and message in issues[0].message, issues


def test_lint_common_checks_and_positions():
    (issue,) = lint_file("x.go", "package main\n<<<<<<< HEAD\n")
    assert (issue.line, issue.message) == (2, "merge conflict marker")
    (issue,) = lint_file("notes.txt", "no final newline")
    assert issue.message == "no newline at end of file"
    assert lint_file("notes.txt", "free text with ( unbalanced [ brackets\n") == []
    (issue,) = lint_file("x.go", "func f() {\n\tg(1]\n}\n")
    assert str(issue) == "x.go:2:5: ']' does not close '(' opened at line 2 col 3 (expected ')')"
    assert linter_of("src/image-provider/nginx.conf.template") == "nginx"
    assert linter_of("src/cart/src/cart.csproj") == "xml"


def test_every_base_tree_of_the_lint_corpus_is_clean():
    for app in apps_with_sources():
        for svc in services_with_trees(app):
            assert lint_tree(base_tree(app, svc)) == [], (app, svc)
