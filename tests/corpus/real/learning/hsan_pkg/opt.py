import argparse

parser = argparse.ArgumentParser(description="HSAN", formatter_class=argparse.ArgumentDefaultsHelpFormatter)
parser.add_argument("--device", type=str, default="cpu")
parser.add_argument("--runs", type=int, default=1)
parser.add_argument("--t", type=int, default=2)
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--dims", type=int, default=8)
parser.add_argument("--activate", type=str, default="ident")
parser.add_argument("--tao", type=float, default=0.9)
parser.add_argument("--beta", type=float, default=1)
args = parser.parse_args([])
