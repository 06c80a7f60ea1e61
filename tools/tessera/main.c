/* tessera: the command-line tool. Dispatches `tessera <command> ...` to the command table. */
#include "cli.h"

#include <string.h>

static const cli_command *const commands[] = {&cli_cmd_resize, &cli_cmd_carve, &cli_cmd_layout,
                                              &cli_cmd_j2k, &cli_cmd_migrate};
enum { NCOMMANDS = sizeof commands / sizeof commands[0] };

static void print_overview(FILE *f)
{
    fprintf(f, "Usage: tessera <command> [options]\n"
               "       tessera help [command]\n"
               "       tessera help --man <command>   (its manual page, roff)\n"
               "       tessera --version\n\n"
               "Image and grid workloads on NVIDIA GPUs, each with an exact CPU path.\n\n"
               "Commands:\n");
    for (int i = 0; i < NCOMMANDS; i++)
        fprintf(f, "  %-10s %s\n", commands[i]->name, commands[i]->summary);
    fprintf(f, "\nRun 'tessera <command> --help' for a command's options and examples.\n"
               "Backends: auto (default), cpu, reference, cuda, opencl (--backend or "
               "TSR_BACKEND).\n"
               "Exit status: 0 success, 1 failure, 2 bad command line, 130 interrupted.\n");
}

static const cli_command *find_command(const char *name)
{
    for (int i = 0; i < NCOMMANDS; i++)
        if (strcmp(commands[i]->name, name) == 0)
            return commands[i];
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        print_overview(stderr);
        return TSR_EXIT_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "--version") == 0 || strcmp(name, "version") == 0) {
        printf("tessera %s (backends:%s%s cpu reference)\n", tsr_version(),
               tsr_backend_available(TSR_BACKEND_CUDA) ? " cuda" : "",
               tsr_backend_available(TSR_BACKEND_OPENCL) ? " opencl" : "");
        return TSR_EXIT_OK;
    }
    if (strcmp(name, "help") == 0 && argc == 4 && strcmp(argv[2], "--man") == 0) {
        const cli_command *cmd = find_command(argv[3]);
        if (!cmd) {
            fprintf(stderr, "tessera: unknown command '%s' (see 'tessera help')\n", argv[3]);
            return TSR_EXIT_USAGE;
        }
        cli_print_man(cmd, stdout);
        return TSR_EXIT_OK;
    }
    if (strcmp(name, "help") == 0 || strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
        if (argc > 2) {
            const cli_command *cmd = find_command(argv[2]);
            if (!cmd) {
                fprintf(stderr, "tessera: unknown command '%s' (see 'tessera help')\n", argv[2]);
                return TSR_EXIT_USAGE;
            }
            cli_print_help(cmd, stdout);
            return TSR_EXIT_OK;
        }
        print_overview(stdout);
        return TSR_EXIT_OK;
    }
    const cli_command *cmd = find_command(name);
    if (!cmd) {
        fprintf(stderr, "tessera: unknown command '%s' (see 'tessera help')\n", name);
        return TSR_EXIT_USAGE;
    }
    return cmd->run(cmd, argc - 2, argv + 2);
}
