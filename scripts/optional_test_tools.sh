#!/usr/bin/env bash
# Debian's Chromium, for the tests that render HTML reports and the Neo4j Browser headless, without
# its recommends (printer set-up, udev, upower, a notification daemon: ~100 packages a headless run never
# uses, which a fresh machine would download and unpack).
# Skipped quietly where apt is not available (tests that need it then skip with a reason).
set -uo pipefail
command -v chromium >/dev/null && exit 0
command -v apt-get >/dev/null || exit 1
[ "$(id -u)" = 0 ] || exit 1
(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null) || exit 1
