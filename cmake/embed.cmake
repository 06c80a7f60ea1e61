# Turns a text file (an OpenCL kernel) into a C header holding it as one string constant.
# Usage: cmake -DIN=file.cl -DOUT=file_cl.h -DNAME=symbol -P embed.cmake
file(READ ${IN} text)
string(REPLACE "\\" "\\\\" text "${text}")
string(REPLACE "\"" "\\\"" text "${text}")
string(REPLACE "\n" "\\n\"\n\"" text "${text}")
file(WRITE ${OUT} "/* Generated from ${IN}; do not edit. */\nstatic const char ${NAME}[] =\n\"${text}\";\n")
