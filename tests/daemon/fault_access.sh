#!/usr/bin/env bash
# Fault tests of who may reach cuzk-daemon (issue 14, item 11):
#   - under umask 000 the gRPC and the HTTP unix sockets are made 0600;
#     socket_mode = "0660" with socket_group (the user's own group, so no
#     root is needed) gives them that mode and group
#   - TLS on 127.0.0.1 (a throwaway CA, server and client certificates made
#     with openssl here): a TLS client is answered (status, and a proof
#     through prove --circuit), a plaintext client is refused; with
#     tls_client_ca (mutual TLS) a client without a certificate, or with one
#     from another CA, is refused and one with the right one is answered;
#     a key that is not the certificate's is refused at start
#   - plaintext gRPC on 0.0.0.0 (an ephemeral port, reached only through
#     127.0.0.1, stopped at once) logs the loud warning; on 127.0.0.1 not
# Usage: tests/daemon/fault_access.sh [BUILD_DIR]   (default build)
set -uo pipefail
. "$(dirname "$0")/common.sh"
need_daemon fault_access
client_built || { skip fault_access "cuzk was built without the gRPC client"; finish; }
scratch fault_access

# conf NAME LINES...: $tmp/NAME.toml of LINES and the example circuit.
conf() {
  local name=$1; shift
  { printf '%s\n' "$@"; printf '[[circuits]]\nid = "mul"\npath = "%s/circuit.zkey"\n' "$EX"; } >"$tmp/$name.toml"
  echo "$tmp/$name.toml"
}
stop() { kill -TERM "$pid" 2>/dev/null; wait_for 30 exited "$pid"; wait "$pid" 2>/dev/null; }
mode_of() { stat -c '%a %G' "$1" 2>/dev/null; }

# ---- unix sockets: 0600 whatever the umask; socket_mode and socket_group --------

mkdir -p "$tmp/u"
f=$(conf umask '[daemon]' "listen = \"unix://$tmp/u/g.sock\"" "status_listen = \"unix://$tmp/u/h.sock\"")
# start_umask000 LOG ARGS...: start_daemon under umask 000.
start_umask000() {
  local old r
  old=$(umask); umask 000
  start_daemon "$@"; r=$?
  umask "$old"
  return $r
}
if start_umask000 "$tmp/umask.log" --config "$f"; then
  g=$(mode_of "$tmp/u/g.sock"); h=$(mode_of "$tmp/u/h.sock")
  if [ "${g%% *}" = 600 ] && [ "${h%% *}" = 600 ]; then pass "umask 000: both sockets 0600"
  else fail "umask 000: both sockets 0600" "gRPC socket: $g" "HTTP socket: $h"; fi
  stop
else fail "daemon under umask 000 starts" "$(tail -5 "$tmp/umask.log")"; fi

grp=$(id -gn)
f=$(conf group '[daemon]' "listen = \"unix://$tmp/u/g.sock\"" "status_listen = \"unix://$tmp/u/h.sock\"" \
  'socket_mode = "0660"' "socket_group = \"$grp\"")
if start_umask000 "$tmp/group.log" --config "$f"; then
  g=$(mode_of "$tmp/u/g.sock"); h=$(mode_of "$tmp/u/h.sock")
  if [ "$g" = "660 $grp" ] && [ "$h" = "660 $grp" ]; then pass "socket_mode 0660, socket_group $grp: both sockets"
  else fail "socket_mode 0660, socket_group $grp" "gRPC socket: $g" "HTTP socket: $h"; fi
  if "$CUZK" status --addr "unix://$tmp/u/g.sock" >"$tmp/group.out" 2>&1; then pass "a client on the 0660 socket is answered"
  else fail "a client on the 0660 socket is answered" "$(cat "$tmp/group.out")"; fi
  stop
else fail "daemon with socket_group starts" "$(tail -5 "$tmp/group.log")"; fi

# ---- TLS and mutual TLS ----------------------------------------------------------------

if ! command -v openssl >/dev/null; then
  skip "TLS" "openssl is not installed (scripts/deps.sh installs it)"
  finish
fi
# ca NAME: a self-signed CA NAME.key/NAME.pem; leaf NAME CA EXT: a key and a
# certificate signed by CA with the extensions EXT.
ca() {
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj "/CN=$1" \
    -keyout "$tmp/$1.key" -out "$tmp/$1.pem" 2>>"$tmp/openssl.log"
}
leaf() {
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=$1" \
    -keyout "$tmp/$1.key" -out "$tmp/$1.csr" 2>>"$tmp/openssl.log" &&
    printf '%s\n' "$3" >"$tmp/$1.ext" &&
    openssl x509 -req -in "$tmp/$1.csr" -CA "$tmp/$2.pem" -CAkey "$tmp/$2.key" -CAcreateserial -days 2 \
      -extfile "$tmp/$1.ext" -out "$tmp/$1.pem" 2>>"$tmp/openssl.log"
}
if ! { ca ca && ca other &&
       leaf server ca "subjectAltName=IP:127.0.0.1,DNS:localhost
extendedKeyUsage=serverAuth" &&
       leaf client ca "extendedKeyUsage=clientAuth" &&
       leaf stranger other "extendedKeyUsage=clientAuth"; }; then
  fail "openssl makes the test certificates" "$(tail -5 "$tmp/openssl.log")"
  finish
fi

# answers NAME ARGS...: `cuzk status ARGS` is answered; refused NAME ARGS...:
# it is not (exit 2, within its deadline).
answers() {
  local name=$1; shift
  if timeout 60 "$CUZK" status "$@" >"$tmp/c.out" 2>&1; then pass "$name"
  else fail "$name" "$(head -3 "$tmp/c.out")"; fi
}
refused() {
  local name=$1; shift
  timeout 60 "$CUZK" status "$@" >"$tmp/c.out" 2>&1; local r=$?
  # refused by the handshake, not for want of a listener
  if [ "$r" = 2 ] && grep -q "cannot reach" "$tmp/c.out" && ! grep -q "Connection refused" "$tmp/c.out"; then
    pass "$name ($(grep -o 'last error: .*' "$tmp/c.out" | head -c 100))"
  else fail "$name" "exit $r" "$(head -3 "$tmp/c.out")"; fi
}

f=$(conf tls '[daemon]' 'listen = "127.0.0.1:0"' "tls_cert = \"$tmp/server.pem\"" "tls_key = \"$tmp/server.key\"")
if start_daemon "$tmp/tls.log" --config "$f"; then
  port=$(logged_port "$tmp/tls.log" gRPC)
  answers "TLS: a TLS client is answered" --addr "127.0.0.1:$port" --tls-ca "$tmp/ca.pem"
  answers "TLS: tls://localhost with --tls-ca is answered" --addr "tls://localhost:$port" --tls-ca "$tmp/ca.pem"
  refused "TLS: a plaintext client is refused" --addr "127.0.0.1:$port"
  refused "TLS: a client trusting another CA is refused" --addr "127.0.0.1:$port" --tls-ca "$tmp/other.pem"
  stop
else fail "TLS daemon starts" "exit $rc" "$(tail -5 "$tmp/tls.log")"; fi

f=$(conf mtls '[daemon]' 'listen = "127.0.0.1:0"' "tls_cert = \"$tmp/server.pem\"" "tls_key = \"$tmp/server.key\"" \
  "tls_client_ca = \"$tmp/ca.pem\"")
if start_daemon "$tmp/mtls.log" --config "$f"; then
  port=$(logged_port "$tmp/mtls.log" gRPC)
  a="127.0.0.1:$port"
  if grep -q "port $port, mutual TLS" "$tmp/mtls.log"; then pass "mTLS: the start line says mutual TLS"
  else fail "mTLS: the start line says mutual TLS" "$(grep gRPC "$tmp/mtls.log")"; fi
  answers "mTLS: a client with a certificate of the CA is answered" --addr "$a" --tls-ca "$tmp/ca.pem" \
    --tls-cert "$tmp/client.pem" --tls-key "$tmp/client.key"
  refused "mTLS: a client without a certificate is refused" --addr "$a" --tls-ca "$tmp/ca.pem"
  refused "mTLS: a client with another CA's certificate is refused" --addr "$a" --tls-ca "$tmp/ca.pem" \
    --tls-cert "$tmp/stranger.pem" --tls-key "$tmp/stranger.key"
  refused "mTLS: a plaintext client is refused" --addr "$a"
  if timeout 120 "$CUZK" prove --circuit mul --addr "$a" --tls-ca "$tmp/ca.pem" --tls-cert "$tmp/client.pem" \
       --tls-key "$tmp/client.key" "$EX/witness.wtns" "$tmp/p.json" "$tmp/pub.json" >"$tmp/p.out" 2>&1 &&
     cmp -s "$tmp/pub.json" "$EX/public.json"; then pass "mTLS: prove --circuit over mutual TLS"
  else fail "mTLS: prove --circuit over mutual TLS" "$(head -3 "$tmp/p.out")"; fi
  stop
else fail "mTLS daemon starts" "exit $rc" "$(tail -5 "$tmp/mtls.log")"; fi

f=$(conf badkey '[daemon]' 'listen = "127.0.0.1:0"' "tls_cert = \"$tmp/server.pem\"" "tls_key = \"$tmp/client.key\"")
if start_daemon "$tmp/badkey.log" --config "$f"; then fail "TLS with another certificate's key is refused at start"; stop
elif [ "$rc" = 1 ] && grep -q "with TLS" "$tmp/badkey.log"; then pass "TLS with another certificate's key is refused at start"
else fail "TLS with another certificate's key is refused at start" "exit $rc" "$(tail -3 "$tmp/badkey.log")"; fi

# --check reads the TLS files as the start does
f=$(conf checkkey '[daemon]' 'listen = "127.0.0.1:0"' "tls_cert = \"$tmp/server.pem\"" "tls_key = \"$tmp/server.csr\"")
out=$("$DAEMON" --check --config "$f" 2>&1); r=$?
if [ "$r" = 2 ] && grep -qF "[daemon] tls_key: $tmp/server.csr: expected a PEM file" <<<"$out"; then
  pass "--check: a tls_key that holds no private key (exit 2)"
else fail "--check: a tls_key that holds no private key (exit 2)" "exit $r" "$out"; fi

# ---- the warning for plaintext TCP that other machines can reach -------------------------

warning='PLAINTEXT gRPC ON AN ADDRESS OTHER MACHINES CAN REACH'
f=$(conf open '[daemon]' 'listen = "0.0.0.0:0"')
if start_daemon "$tmp/open.log" --config "$f"; then
  stop
  if grep -q "warn .*$warning" "$tmp/open.log"; then pass "plaintext on 0.0.0.0: the start-up warning"
  else fail "plaintext on 0.0.0.0: the start-up warning" "$(grep -i 'warn\|listening' "$tmp/open.log")"; fi
else fail "daemon on 0.0.0.0:0 starts" "exit $rc" "$(tail -5 "$tmp/open.log")"; fi
f=$(conf local '[daemon]' 'listen = "127.0.0.1:0"')
if start_daemon "$tmp/local.log" --config "$f"; then
  stop
  if ! grep -q "$warning" "$tmp/local.log"; then pass "plaintext on 127.0.0.1: no warning"
  else fail "plaintext on 127.0.0.1: no warning" "$(grep WARN "$tmp/local.log")"; fi
else fail "daemon on 127.0.0.1:0 starts" "exit $rc" "$(tail -5 "$tmp/local.log")"; fi

finish
