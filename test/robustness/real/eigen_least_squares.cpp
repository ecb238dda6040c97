// Numerical code with Eigen: a polynomial least-squares fit by QR and by SVD,
// and a sparse Poisson solve with conjugate gradients. No kernel: dmalint
// must stay silent.
#include <Eigen/Dense>
#include <Eigen/IterativeLinearSolvers>
#include <Eigen/Sparse>
#include <fmt/format.h>

#include <cmath>
#include <vector>

namespace fit {

Eigen::VectorXd polyfit(const Eigen::VectorXd& x, const Eigen::VectorXd& y, int degree) {
  Eigen::MatrixXd A(x.size(), degree + 1);
  for (Eigen::Index i = 0; i < x.size(); ++i)
    for (int k = 0; k <= degree; ++k) A(i, k) = std::pow(x(i), k);
  return A.colPivHouseholderQr().solve(y);
}

Eigen::VectorXd polyfit_svd(const Eigen::VectorXd& x, const Eigen::VectorXd& y, int degree) {
  Eigen::MatrixXd A = Eigen::MatrixXd::NullaryExpr(
      x.size(), degree + 1, [&](Eigen::Index i, Eigen::Index k) { return std::pow(x(i), k); });
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(A, Eigen::ComputeThinU | Eigen::ComputeThinV);
  return svd.solve(y);
}

// -u'' = f on (0, 1), u(0) = u(1) = 0, with n interior points.
Eigen::VectorXd poisson_1d(int n) {
  const double h = 1.0 / (n + 1);
  std::vector<Eigen::Triplet<double>> t;
  t.reserve(3 * n);
  for (int i = 0; i < n; ++i) {
    t.emplace_back(i, i, 2.0 / (h * h));
    if (i > 0) t.emplace_back(i, i - 1, -1.0 / (h * h));
    if (i + 1 < n) t.emplace_back(i, i + 1, -1.0 / (h * h));
  }
  Eigen::SparseMatrix<double> L(n, n);
  L.setFromTriplets(t.begin(), t.end());
  Eigen::VectorXd f = Eigen::VectorXd::Ones(n);
  Eigen::ConjugateGradient<Eigen::SparseMatrix<double>, Eigen::Lower | Eigen::Upper> cg;
  cg.setTolerance(1e-12);
  cg.compute(L);
  return cg.solve(f);
}

}  // namespace fit

int main() {
  Eigen::VectorXd x = Eigen::VectorXd::LinSpaced(50, -1.0, 1.0);
  Eigen::VectorXd y = x.array().square() * 3.0 - x.array() + 0.5;
  Eigen::VectorXd c1 = fit::polyfit(x, y, 2);
  Eigen::VectorXd c2 = fit::polyfit_svd(x, y, 2);
  fmt::print("qr  {:.4f} {:.4f} {:.4f}\n", c1(0), c1(1), c1(2));
  fmt::print("svd {:.4f} {:.4f} {:.4f} (diff {:.2e})\n", c2(0), c2(1), c2(2), (c1 - c2).norm());
  Eigen::VectorXd u = fit::poisson_1d(63);
  fmt::print("u(1/2) = {:.6f} (exact 0.125)\n", u(31));
  Eigen::Matrix3d R = Eigen::AngleAxisd(0.3, Eigen::Vector3d::UnitZ()).toRotationMatrix();
  fmt::print("det R = {:.6f}\n", R.determinant());
  return 0;
}
