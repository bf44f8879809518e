// A header of the exercise's folder.
#pragma once
constexpr int kFillValue = 4242;
