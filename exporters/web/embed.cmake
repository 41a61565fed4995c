# Turns a text file into a C file defining `const char NAME[]` with its
# bytes (NUL-terminated), so the status page's script and stylesheet live in
# ordinary .js / .css files yet ship inside the binary.
#   cmake -DIN=<file> -DOUT=<file.c> -DNAME=<symbol> -P embed.cmake
file(READ ${IN} hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
file(WRITE ${OUT} "/* Generated from ${IN} by embed.cmake; do not edit. */\n"
                  "const char ${NAME}[] = {\n    ${bytes}0x00};\n")
