"""Offline checks of what deploys Redline: the services' Dockerfiles, the Kubernetes manifests
under k8s/ and the Tiltfile. No cluster, Docker engine or network is needed, beyond the package
index the pinned tools are installed from the first time.

- Every Dockerfile passes hadolint and checkov, installs its own service, and copies every
  workspace member's pyproject.toml (uv reads them all to use the lock).
- Both overlays render; every rendered object validates against the Kubernetes schemas
  (kubernetes-validate, strict) or, for the Gateway API and Envoy Gateway kinds, against the
  schemas in k8s/schemas/ with unknown fields refused; and the rendered manifests pass checkov.
- The HTTPRoutes route exactly the prefixes of `redline.runtime.routing.SERVICE_PREFIXES` to
  their services.
- Every REDLINE_* variable a container gets is a setting of its service, every $(VAR) in an
  environment value is defined, and every secret key a container needs is in the dev Secret.
- Each service's NATS user (users.conf) may call, answer, subscribe to and consume what the
  service's code does: its own sources and the `redline.runtime` modules it uses, read with
  `ast` (`nats_permissions`).
- The Tiltfile loads with Tilt's functions stubbed, names only paths that exist, builds an
  image for each of the dev overlay's own workloads, and syncs files to where the image keeps
  them.
- memory's locked dependencies do not pull in torch.

The tools are not workspace dependencies: each runs at a pinned version through `uv tool run`.
Run from the repository root with the workspace's environment: `python -m scripts.deploy_check`
(`make deploy-check`). Prints a line per check and a closing count; exits 1 if any failed.

One module per job: `tools` runs the pinned tools, `workspace` knows the repository's members,
`report` prints the results, `images` checks the Dockerfiles, `manifests` the rendered
manifests (with `nats_permissions` reading what the services do on NATS), `tiltfile` the
Tiltfile (with Tilt's functions stubbed), and `helper` parses YAML and Starlark in the tools'
environment; `__main__` runs them all.
"""
