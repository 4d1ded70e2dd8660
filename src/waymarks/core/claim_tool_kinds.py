"""A small vocabulary of software work by type (issue 20 item 4): the alternatives of a
*word slot*, tools of one category and conventions of one kind, each a value of its kind
(:mod:`waymarks.core.claim_kinds` reads them as it reads a CI service or a database). Two
claims of one subject binding one kind to two of its names contradict, whatever verb each
says it with ("We deploy with Helm." / "Deployments use Kustomize now.", "Python code is
formatted with Black." / "We format Python code with Ruff format.", "JSON fields are
camelCase." / "JSON fields use snake_case."): the words of what the kind does (deploy,
format, lint, track issues …) are the kind's attribute, no subject of their own
(:data:`KIND_WORDS`). The names are grouped by what they do, not by any example sentence,
and a name belongs to one kind only (the first: "ruff format" formats, "ruff" lints).
Pure."""

from __future__ import annotations

from typing import Final

from waymarks.core.lazy_re import lazy

#: kind -> its names, each as typed in lower case (the first is the canonical name)
TOOL_KINDS: Final[dict[str, tuple[tuple[str, ...], ...]]] = {
    "deploy": (("helm",), ("kustomize",), ("argo cd", "argocd"), ("flux", "fluxcd"),
               ("spinnaker",), ("octopus deploy",), ("capistrano",), ("skaffold",)),
    "iac": (("terraform",), ("opentofu",), ("pulumi",), ("cloudformation",),
            ("aws cdk",), ("crossplane",)),
    "config-management": (("ansible",), ("chef",), ("puppet",), ("saltstack",)),
    "orchestrator": (("kubernetes", "k8s"), ("nomad",), ("docker swarm",),
                     ("amazon ecs", "aws ecs", "ecs"), ("openshift",)),
    "py-web": (("django",), ("flask",), ("fastapi",), ("starlette",), ("tornado",),
               ("pyramid",)),
    "js-server": (("express", "express.js", "expressjs"), ("nestjs",), ("fastify",),
                  ("koa",), ("hapi",)),
    "ui-framework": (("react",), ("vue", "vue.js", "vuejs"), ("angular",), ("svelte",),
                     ("solidjs",), ("ember",), ("preact",)),
    "mobile": (("flutter",), ("react native",), ("ionic",), ("xamarin",),
               ("kotlin multiplatform",)),
    "state-management": (("redux",), ("mobx",), ("zustand",), ("pinia",), ("vuex",),
                         ("recoil",)),
    "formatter": (("black",), ("ruff format",), ("yapf",), ("autopep8",), ("prettier",),
                  ("dprint",)),
    "linter": (("ruff",), ("flake8",), ("pylint",), ("eslint",), ("biome",), ("tslint",),
               ("rubocop",), ("golangci-lint",)),
    "type-checker": (("mypy",), ("pyright",), ("pyre",), ("pytype",)),
    "tracker": (("jira",), ("linear",), ("github issues",), ("youtrack",), ("asana",),
                ("trello",), ("clickup",)),
    "chat": (("slack",), ("microsoft teams", "ms teams"), ("discord",), ("mattermost",),
             ("zulip",)),
    "metrics": (("prometheus",), ("victoriametrics",), ("graphite",), ("statsd",)),
    "code-host": (("github",), ("gitlab",), ("bitbucket",), ("gitea",), ("azure repos",)),
    "migrations": (("alembic",), ("flyway",), ("liquibase",), ("goose",)),
    "orm": (("sqlalchemy",), ("django orm",), ("prisma",), ("typeorm",), ("sequelize",),
            ("hibernate",), ("activerecord",), ("gorm",), ("peewee",), ("drizzle",)),
    "protocol": (("grpc",), ("rest",), ("graphql",), ("soap",), ("json-rpc",)),
    "encoding": (("json",), ("protobuf", "protocol buffers"), ("avro",),
                 ("msgpack", "messagepack"), ("cbor",)),
    "auth": (("jwt", "jwts"), ("session cookies",), ("oauth",), ("saml",),
             ("basic auth",)),
    "case": (("camelcase", "camel case"), ("snake_case", "snake case"),
             ("kebab-case", "kebab case"), ("pascalcase", "pascal case")),
    "merge": (("squash", "squash-merged", "squash-merge", "squash merge"),
              ("rebase", "rebased"), ("merge commit", "merge commits")),
    "branching": (("trunk-based development", "trunk-based"), ("git flow", "gitflow"),
                  ("github flow",)),
    "versioning": (("semantic versioning", "semver"), ("calendar versioning", "calver")),
    "quotes": (("single quotes",), ("double quotes",)),
}

#: the words of what a kind does: its attribute, no subject ("We deploy with Helm." and
#: "Deployments use Kustomize." are of one subject, the deploy tool's)
KIND_WORDS: Final[dict[str, frozenset[str]]] = {
    kind: frozenset(words.split()) for kind, words in {
        "deploy": "deploy deployment deployed delivery continuous 部 署",
        "iac": "infrastructure provision provisioned managed manage 基 础 设 施 管 理",
        "config-management": "configuration config managed manage",
        "orchestrator": "scheduled orchestrated orchestration 调 度",
        "formatter": "format formatted formatting formatter 格 式 化",
        "linter": "lint linted linting linter",
        "type-checker": "type check checked checking checker type-check type-checked",
        "tracker": "tracked track tracking issue ticket 问 题 跟 踪",
        "chat": "chat communication",
        "metrics": "collected collect collection",
        "code-host": "hosted host",
        "migrations": "run",
        "orm": "orm data access",
        "protocol": "talk communicate communication",
        "encoding": "serialized serialised encoded encoding serialization format",
        "auth": "done",
        "case": "name named written",
        "merge": "merged merge",
        "branching": "branching development follow",
        "versioning": "follow",
    }.items()}


#: a verb of where a thing is kept before the name: a place, read as before ("Our
#: Terraform state is stored in Terraform Cloud.": the state is in a service, no tool of
#: the kind is used), and "at rest", where data lies, no REST
_PLACED: Final = lazy(r"\b(?:stored|kept|saved|put|placed|uploaded|located)"
                      r" (?:in|into|to|on|at|under)(?: the)? $|\bat $")


def tool_said(text: str, start: int, name: int) -> bool:
    """Whether the name of a tool kind at ``name`` (its preceding words from ``start``) is
    a value of its kind: not after a verb of where a thing is kept (:data:`_PLACED`)."""
    return _PLACED.search(text, max(0, start - 12), name) is None
