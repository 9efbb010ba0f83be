// A kernel that does not compile (tests/robustness.cmake, e2e.rb_kernel_compile_error):
// the compiler's log must reach the user, naming this undeclared identifier.
__kernel void mandelbrot(__global int *restrict out, int width, int height,
                         float x0, float y0, float dx, float dy, int max_iter)
{
    out[0] = tb_undeclared_identifier;
}
