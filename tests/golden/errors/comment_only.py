# error: 4:1: no function
# a file with only comments and imports holds no module
from tvm.script import tir as T
