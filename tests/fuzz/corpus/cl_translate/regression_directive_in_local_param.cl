kernel
void u(local t
#pragmaOPENCL
*u){