/* placeholder until the CLI lands (this session) */
int main(void)
{
    return 0;
}
