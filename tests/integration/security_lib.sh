# shellcheck shell=sh
# $tmp comes from lib.sh (SC2154); globals are for the sourcing script (SC2034).
# shellcheck disable=SC2034,SC2154
# Helpers of the security tests (security_*_test.sh), sourced after lib.sh
# and lib_init. Everything lives in $tmp; only loopback.
#
# sec_certs
#     A CA (ca), a server certificate for 127.0.0.1/localhost (server), a TLS
#     client certificate (client, extendedKeyUsage clientAuth) signed by ca,
#     and a client certificate signed by another CA (rogue). Files
#     $tmp/NAME.crt and $tmp/NAME.key. Returns 1 (after fail) when openssl
#     cannot make them.
# sec_bcrypt PASSWORD
#     Prints a bcrypt ($2b$, cost 5) hash of PASSWORD (Python's crypt module,
#     i.e. the same libxcrypt the daemon verifies with).
# sec_code ARGS...
#     curl -s ARGS, prints only the HTTP status (000 when no HTTP answer).

sec_mkca() {
    openssl req -x509 -new -newkey rsa:2048 -nodes -keyout "$tmp/$1.key" -subj "/CN=$1" \
        -days 1 -sha256 -out "$tmp/$1.crt" 2>/dev/null
}

sec_mkcert() { # NAME CN EXT CA
    openssl req -new -newkey rsa:2048 -nodes -keyout "$tmp/$1.key" -subj "/CN=$2" \
        -out "$tmp/$1.csr" 2>/dev/null &&
        printf '%s\n' "$3" >"$tmp/$1.ext" &&
        openssl x509 -req -in "$tmp/$1.csr" -CA "$tmp/$4.crt" -CAkey "$tmp/$4.key" \
            -CAcreateserial -days 1 -sha256 -extfile "$tmp/$1.ext" -out "$tmp/$1.crt" 2>/dev/null
}

sec_certs() {
    if sec_mkca ca && sec_mkca rogueca &&
        sec_mkcert server localhost 'subjectAltName=DNS:localhost,IP:127.0.0.1
extendedKeyUsage=serverAuth' ca &&
        sec_mkcert client scraper 'extendedKeyUsage=clientAuth' ca &&
        sec_mkcert rogue scraper 'extendedKeyUsage=clientAuth' rogueca; then
        return 0
    fi
    fail "openssl could not make the test certificates"
    return 1
}

sec_bcrypt() {
    /usr/bin/python3 -W ignore -c 'import crypt, sys
print(crypt.crypt(sys.argv[1], crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=32)))' "$1"
}

sec_code() {
    curl -s -o /dev/null -w '%{http_code}' --max-time 10 "$@"
}
